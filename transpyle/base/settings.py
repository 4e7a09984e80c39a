"""settings: the switches generated code and backends read from the environment (``TRANSPYLE_TIERED=0``,
``TRANSPYLE_ELEMENT_LOOPS=off``, ...): one spelling of "off" for all of them."""
import os

#: the values that turn a switch off, in any case; unset or anything else leaves it on
OFF = ("0", "off", "false", "no")


def switched_off(variable):
    """Whether the environment variable ``variable`` turns its switch off."""
    return os.environ.get(variable, "").strip().lower() in OFF
