# The emulator as an image: the wheel is built in one stage and installed in a slim one, which runs it as a
# user of its own, with the bundled scenarios and cassettes (the wheel carries them). It serves /data's
# scenarios/ when there is one (docker-compose.yml mounts ./scenarios there), else the bundled ones.
#
#   docker build -t emulator . && docker run --rm -p 127.0.0.1:8000:8000 -e EMULATOR_ADMIN_TOKEN=… emulator
#
# Inside, it binds 0.0.0.0, so the admin routes (/_emulator/) want the token from EMULATOR_ADMIN_TOKEN.
# ENTRYPOINT and CMD are in exec form: the emulator is PID 1 and gets docker stop's SIGTERM itself.
# Docker does not run where the tests run: tests/test_packaging.py builds the wheel with the build stage's
# `pip wheel` from what the stage copies, runs the runtime stage's pip install in a fresh venv, and serves CMD there
# with HEALTHCHECK's probe.

# The build stage has a C compiler, and its wheel has the core compiled by mypyc (setup.py): `EMULATOR_COMPILED=1`
# fails the build rather than fall back to pure Python. The runtime stage needs no compiler.
FROM python:3.11-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY pyproject.toml setup.py README.md LICENSE ./
COPY emulator emulator
COPY scenarios scenarios
COPY recordings recordings
RUN EMULATOR_COMPILED=1 pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

FROM python:3.11-slim
RUN --mount=type=bind,from=build,source=/wheels,target=/wheels pip install --no-cache-dir /wheels/*.whl
# uid 1000, the first user's on most hosts: the record service can write into a bind-mounted ./recordings.
RUN useradd --uid 1000 --home-dir /data --no-create-home emulator && install -d -o emulator /data
USER emulator
WORKDIR /data
EXPOSE 8000
# Slim images have no curl: python's urllib asks for /health on CMD's port.
HEALTHCHECK --interval=10s --timeout=5s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/health', timeout=4)"]
ENTRYPOINT ["emulator"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8000"]
