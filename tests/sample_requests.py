"""A plain chained request the tests share (no constraints, no options)."""

CHAINED = {
    "context": (
        "Pump 3 is running. If pump 3 is running, then valve 7 is open. "
        "Whenever valve 7 is open, tank 2 is pressurized. "
        "By default, the mode of line 4 is automatic. "
        "If tank 2 is pressurized, then the mode of line 4 is maintenance. "
        "Fan 5 is not enabled."
    ),
    "questions": [
        {"id": "pump_running", "text": "Is pump 3 running?", "type": "boolean"},
        {"id": "valve_open", "text": "Is valve 7 open?", "type": "boolean"},
        {"id": "tank_pressurized", "text": "Is tank 2 pressurized?", "type": "boolean"},
        {"id": "line_mode", "text": "What is the mode of line 4?", "type": "categorical",
         "options": ["manual", "automatic", "maintenance"]},
        {"id": "fan_enabled", "text": "Is fan 5 enabled?", "type": "boolean"},
    ],
}
