"""A plain chained request the tests share: the README example's context, its chain asked
link by link, without constraints or options."""

from decider.cli import EXAMPLE

CHAINED = {
    "context": EXAMPLE["context"],
    "questions": [
        {"id": "pump_running", "text": "Is pump 3 running?", "type": "boolean"},
        {"id": "valve_open", "text": "Is valve 7 open?", "type": "boolean"},
        {"id": "tank_pressurized", "text": "Is tank 2 pressurized?", "type": "boolean"},
        {"id": "line_mode", "text": "What is the mode of line 4?", "type": "categorical",
         "options": ["manual", "automatic", "maintenance"]},
        {"id": "fan_enabled", "text": "Is fan 5 enabled?", "type": "boolean"},
    ],
}
