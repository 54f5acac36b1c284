"""What can be computed from a question's own numbers, computed: arithmetic and percentages by a small evaluator
(no `eval`), a rate problem (distance, speed, time; a price less a discount), a unit conversion ("How many minutes
are in 3 hours?"), and a yes or a no that arithmetic decides ("Is 91 a prime number?", "Is 2 + 2 equal to 5?").
Each is pure, and says None where the question asks for nothing it computes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal, DivisionByZero, InvalidOperation

# --- arithmetic -----------------------------------------------------------------------------------------------------

_NUMBER_WORDS = {
    w: str(n)
    for n, w in enumerate(
        (
            *("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven"),
            *("twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"),
        )
    )
} | {"thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "seventy": "70", "eighty": "80", "ninety": "90"}
_NUMBER_WORDS |= {"hundred": "100", "thousand": "1000", "half": "0.5", "a dozen": "12", "dozen": "12"}
# Operators as said, longest first: the symbol the evaluator reads.
_SAID = (
    ("multiplied by", "*"),
    ("divided by", "/"),
    ("to the power of", "^"),
    ("raised to", "^"),
    ("plus", "+"),
    ("minus", "-"),
    ("times", "*"),
    ("over", "/"),
    ("x", "*"),
    ("×", "*"),
    ("÷", "/"),
    ("add", "+"),
)
_TOKEN = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?|[-+*/^()%]")
_EXPRESSION = re.compile(r"(?<![\w.])-?[\d(][\d\s.,()+\-*/^%]*[\d)%]")
_OPERATOR = re.compile(r"[-+*/^]")
_PERCENT_OF = re.compile(r"(\d+(?:\.\d+)?)\s*(?:%|percent)\s+of\s+\$?(\d+(?:,\d{3})*(?:\.\d+)?)")
_SQUARE_ROOT = re.compile(r"square root of\s+(\d+(?:\.\d+)?)")
_SQUARED = re.compile(r"(\d+(?:\.\d+)?)\s+(squared|cubed)")
_CUE = re.compile(r"\b(what is|what's|whats|calculate|compute|how much is|evaluate|work out|solve)\b|=\s*\??\s*$")
_JOINED = re.compile(r"(?<=\d)[-/](?=\d)")  # 2024-01-01, 5-10, 12/25: not arithmetic


def _spoken(low: str) -> str:
    """The question's arithmetic in symbols: "seventeen times 23" → "17 * 23"."""
    for word, digits in _NUMBER_WORDS.items():
        if word in low:
            low = re.sub(rf"\b{word}\b", digits, low)
    for said, symbol in _SAID:
        if said in low:
            low = re.sub(
                rf"(?<=[\d)])\s*\b{re.escape(said)}\b\s*(?=[\d(])" if said.isalpha() else re.escape(said),
                f" {symbol} ",
                low,
            )
    return low


class _Parser:
    """A recursive-descent evaluator of + - * / ^ and parentheses over decimals: nothing else can run."""

    def __init__(self, tokens: Sequence[str]) -> None:
        self.tokens, self.at = list(tokens), 0

    def _next(self) -> str:
        return self.tokens[self.at] if self.at < len(self.tokens) else ""

    def _take(self) -> str:
        token = self._next()
        self.at += 1
        return token

    def expression(self) -> Decimal:
        value = self._term()
        while self._next() in ("+", "-"):
            value = value + self._term() if self._take() == "+" else value - self._term()
        return value

    def _term(self) -> Decimal:
        value = self._power()
        while self._next() in ("*", "/"):
            value = value * self._power() if self._take() == "*" else value / self._power()
        return value

    def _power(self) -> Decimal:
        value = self._unary()
        if self._next() == "^":
            self._take()
            exponent = self._power()
            if abs(exponent) > 64:
                raise InvalidOperation
            value = value**exponent
        return value

    def _unary(self) -> Decimal:
        if self._next() == "-":
            self._take()
            return -self._unary()
        token = self._take()
        if token == "(":
            value = self.expression()
            if self._take() != ")":
                raise InvalidOperation
            return value
        if not token or not token[0].isdigit():
            raise InvalidOperation
        value = Decimal(token.replace(",", ""))
        if self._next() == "%":
            self._take()
            value /= 100
        return value


def computed(text: str) -> str | None:
    """The answer to the arithmetic the question asks for ("What is 17 times 23?" → "17 × 23 = 391."), or None:
    only where it asks ("what is", "calculate"…), and a hyphen or slash between digits (a date, a range) is no
    operator."""
    low = text.lower()
    if _CUE.search(low) is None:
        return None
    low = _JOINED.sub(" ", low)
    if (found := _PERCENT_OF.search(low)) is not None:
        share, whole = Decimal(found[1]), Decimal(found[2].replace(",", ""))
        return f"{found[1]}% of {found[2]} is {_shown(share * whole / 100)}."
    if (found := _SQUARE_ROOT.search(low)) is not None:
        return f"The square root of {found[1]} is {_shown(Decimal(found[1]).sqrt())}."
    if (found := _SQUARED.search(low)) is not None:
        power = 2 if found[2] == "squared" else 3
        return f"{found[1]} {found[2]} is {_shown(Decimal(found[1]) ** power)}."
    said = _spoken(low)
    for match in _EXPRESSION.finditer(said):
        span = match.group().strip()
        if not _OPERATOR.search(span.lstrip("-")):
            continue
        tokens = _TOKEN.findall(span)
        try:
            parser = _Parser(tokens)
            value = parser.expression()
            if parser.at != len(tokens):
                continue
        except (InvalidOperation, DivisionByZero, ZeroDivisionError, OverflowError):
            if re.search(r"/\s*0(?![.\d])", span):
                return "That divides by zero, which has no answer."
            continue
        return f"{_pretty(tokens)} = {_shown(value)}."
    return None


def _pretty(tokens: Sequence[str]) -> str:
    out = " ".join(tokens).replace("( ", "(").replace(" )", ")").replace(" %", "%")
    return out.replace("*", "×").replace("/", "÷")


def _shown(value: Decimal) -> str:
    """A result as a person writes it: whole where it is whole, else to at most four places; thousands grouped."""
    rounded = value.quantize(Decimal(1)) if value == value.to_integral_value() else round(value, 4).normalize()
    text = f"{rounded:,}" if abs(rounded) >= 10000 else f"{rounded}"
    return text.rstrip("0").rstrip(".") if "." in text else text


# --- rates: distance, speed, time; a price less a discount ---------------------------------------------------------

_QUANTITY = r"(\d+(?:\.\d+)?)"
_DISTANCE = re.compile(_QUANTITY + r"\s*(km|kilometers|kilometres|miles|mi|meters|metres|m)\b")
_SPEED = re.compile(_QUANTITY + r"\s*(km/h|kph|mph|km per hour|miles per hour|m/s)")
_HOURS = re.compile(_QUANTITY + r"\s*(hours|hour|hrs|h)\b(?:\s*(?:and\s*)?(\d+)\s*min)?")
_MINUTES = re.compile(_QUANTITY + r"\s*(minutes|mins|min)\b")
_MONEY = re.compile(r"[$€£]\s?(\d+(?:,\d{3})*(?:\.\d{1,2})?)|(\d+(?:\.\d{1,2})?)\s*(dollars|euros|pounds)")
_DISCOUNT = re.compile(
    r"(\d+(?:\.\d+)?)\s*(?:%|percent)\s*(off|discount)|(?:discount|off)\s+(?:of\s+)?(\d+(?:\.\d+)?)\s*%"
)
_RATE_CUE = re.compile(r"\b(speed|fast|far|distance|how long|cost|price|pay|arrive)\b")
_UNIT = {"kilometers": "km", "kilometres": "km", "mi": "miles", "meters": "m", "metres": "m"}


def rate(text: str) -> str | None:
    """A word problem of a rate, asked as a question: how fast (a distance over a time), how far (a speed for a
    time), how long (a distance at a speed); or a price less a discount."""
    low = text.lower()
    if "?" not in low or _RATE_CUE.search(low) is None:
        return None
    if (off := _DISCOUNT.search(low)) is not None and (price := _MONEY.search(low)) is not None:
        share = Decimal(off[1] or off[3])
        amount = Decimal((price[1] or price[2]).replace(",", ""))
        symbol = price.group()[0] if price[1] is not None else {"euros": "€", "pounds": "£"}.get(price[3], "$")
        left = amount * (100 - share) / 100
        return (
            f"{share.normalize()}% off {symbol}{amount:.2f} takes {symbol}{amount - left:.2f} off, so it costs "
            f"{symbol}{left:.2f}."
        )
    speed = _SPEED.search(low)
    unspeeded = low[: speed.start()] + " " * (speed.end() - speed.start()) + low[speed.end() :] if speed else low
    distance, hours = _DISTANCE.search(unspeeded), _duration(unspeeded)
    if speed is not None and hours is not None and distance is None:
        far = Decimal(speed[1]) * hours
        unit = "miles" if speed[2] in ("mph", "miles per hour") else "km" if "km" in speed[2] else "m"
        return f"At {speed[1]} {speed[2]} for {_shown(hours)} hours, that is {_shown(far)} {unit}."
    if distance is not None and hours is not None and speed is None and hours:
        unit = _UNIT.get(distance[2], distance[2])
        per = "mph" if unit == "miles" else f"{unit}/h"
        fast = Decimal(distance[1]) / hours
        return f"{distance[1]} {unit} in {_shown(hours)} hours is an average of {_shown(fast)} {per}."
    if distance is not None and speed is not None and Decimal(speed[1]):
        took = Decimal(distance[1]) / Decimal(speed[1])
        whole, minutes = int(took), int(round((took - int(took)) * 60))
        said = f"{whole} hour{'s' if whole != 1 else ''}" + (f" {minutes} minutes" if minutes else "")
        return f"{distance[1]} {_UNIT.get(distance[2], distance[2])} at {speed[1]} {speed[2]} takes {said}."
    return None


def _duration(low: str) -> Decimal | None:
    if (found := _HOURS.search(low)) is not None:
        return Decimal(found[1]) + (Decimal(found[3]) / 60 if found[3] else 0)
    if (found := _MINUTES.search(low)) is not None:
        return Decimal(found[1]) / 60
    return None


# --- units: "How many minutes are in 3 hours?", "Convert 5 km to miles" ---------------------------------------------

# Each unit's size in its dimension's base unit (second, metre, gram, litre), and the words it is said in.
_UNITS: dict[str, tuple[str, Decimal, tuple[str, ...]]] = {
    "second": ("time", Decimal(1), ("seconds", "second", "secs", "sec", "s")),
    "minute": ("time", Decimal(60), ("minutes", "minute", "mins", "min")),
    "hour": ("time", Decimal(3600), ("hours", "hour", "hrs", "hr", "h")),
    "day": ("time", Decimal(86400), ("days", "day")),
    "week": ("time", Decimal(604800), ("weeks", "week")),
    "millimetre": ("length", Decimal("0.001"), ("millimeters", "millimetres", "millimeter", "millimetre", "mm")),
    "centimetre": ("length", Decimal("0.01"), ("centimeters", "centimetres", "centimeter", "centimetre", "cm")),
    "metre": ("length", Decimal(1), ("meters", "metres", "meter", "metre", "m")),
    "kilometre": ("length", Decimal(1000), ("kilometers", "kilometres", "kilometer", "kilometre", "km")),
    "inch": ("length", Decimal("0.0254"), ("inches", "inch", "in")),
    "foot": ("length", Decimal("0.3048"), ("feet", "foot", "ft")),
    "yard": ("length", Decimal("0.9144"), ("yards", "yard", "yd")),
    "mile": ("length", Decimal("1609.344"), ("miles", "mile", "mi")),
    "gram": ("mass", Decimal(1), ("grams", "gram", "g")),
    "kilogram": ("mass", Decimal(1000), ("kilograms", "kilogram", "kilos", "kilo", "kg")),
    "pound": ("mass", Decimal("453.59237"), ("pounds", "pound", "lbs", "lb")),
    "ounce": ("mass", Decimal("28.349523125"), ("ounces", "ounce", "oz")),
    "millilitre": ("volume", Decimal("0.001"), ("milliliters", "millilitres", "milliliter", "millilitre", "ml")),
    "litre": ("volume", Decimal(1), ("liters", "litres", "liter", "litre", "l")),
}
_SAID_AS = {word: unit for unit, (_, _, words) in _UNITS.items() for word in words}
_UNIT_WORD = "|".join(sorted(map(re.escape, _SAID_AS), key=len, reverse=True))
_HOW_MANY_IN = re.compile(
    rf"\bhow many ({_UNIT_WORD}) (?:are |is )?(?:there )?in (?:an? |one )?(\d+(?:\.\d+)?)?\s*({_UNIT_WORD})\b"
)
_CONVERT = re.compile(rf"\bconvert (\d+(?:\.\d+)?)\s*({_UNIT_WORD}) (?:to|into|in) ({_UNIT_WORD})\b")
_PLURAL_OF = {"foot": "feet", "inch": "inches"}


def converted(text: str) -> str | None:
    """A unit conversion the question asks for, between units of one dimension: "3 hours is 180 minutes."."""
    low = text.lower()
    if (found := _HOW_MANY_IN.search(low)) is not None:
        into, amount, unit = found[1], found[2] or "1", found[3]
    elif (found := _CONVERT.search(low)) is not None:
        amount, unit, into = found[1], found[2], found[3]
    else:
        return None
    source, target = _UNITS[_SAID_AS[unit]], _UNITS[_SAID_AS[into]]
    if source[0] != target[0]:
        return None
    given, value = Decimal(amount), Decimal(amount) * source[1] / target[1]
    return f"{_shown(given)} {_named(_SAID_AS[unit], given)} is {_shown(value)} {_named(_SAID_AS[into], value)}."


def _named(unit: str, amount: Decimal) -> str:
    return unit if amount == 1 else _PLURAL_OF.get(unit, unit + "s")


# --- a yes or a no that arithmetic decides ---------------------------------------------------------------------------

_PRIME = re.compile(r"^is (\d{1,12}) (?:a )?prime(?: number)?\b")
_PARITY = re.compile(r"^is (\d{1,18}) (?:an? )?(even|odd)(?: number)?\b")
_DIVISIBLE = re.compile(r"^is (\d{1,18}) (?:evenly )?divisible by (\d{1,18})\b")
_EQUAL = re.compile(r"^(?:is|does) (.+?) (?:equal to|equal|equals|=) (.+?)\s*(?:\?|$)")


def polar(text: str) -> tuple[bool, str] | None:
    """The yes or no to a question arithmetic decides, and a sentence saying why; None for any other."""
    low = " ".join(text.lower().split())
    if (found := _PRIME.match(low)) is not None:
        n = int(found[1])
        factor = next((d for d in range(2, int(n**0.5) + 1) if n % d == 0), None) if n > 1 else 1
        if factor is None:
            return True, f"{n} is a prime number: nothing but 1 and {n} divides it."
        if n < 2:
            return False, f"{n} is not prime."
        return False, f"{n} = {factor} × {n // factor}, so it is not prime."
    if (found := _PARITY.match(low)) is not None:
        n, asked = int(found[1]), found[2]
        even = n % 2 == 0
        return (even == (asked == "even")), f"{n} is {'even' if even else 'odd'}."
    if (found := _DIVISIBLE.match(low)) is not None:
        n, d = int(found[1]), int(found[2])
        if d == 0:
            return None
        return n % d == 0, f"{n} ÷ {d} = {_shown(Decimal(n) / d)}."
    if (found := _EQUAL.match(low)) is not None:
        left, right = _value(found[1]), _value(found[2])
        if left is None or right is None:
            return None
        return left == right, f"{found[1].strip()} = {_shown(left)}."
    return None


def _value(said: str) -> Decimal | None:
    tokens = _TOKEN.findall(_spoken(said))
    if not tokens or "".join(tokens).replace(" ", "") != re.sub(r"\s+", "", _spoken(said)).rstrip("?."):
        return None
    try:
        parser = _Parser(tokens)
        value = parser.expression()
    except (InvalidOperation, DivisionByZero, ZeroDivisionError, OverflowError):
        return None
    return value if parser.at == len(tokens) else None
