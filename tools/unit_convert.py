"""Convert a length between metric and imperial units.

Parameters come from the INPUTS dict below (the registry style of seeds/004); an
unknown unit pair is returned as an error result, not raised.
"""

INPUTS = {
    "value": {"type": "number", "required": True, "description": "The length to convert"},
    "from_unit": {"type": "string", "enum": ["mm", "cm", "m", "km", "in", "ft", "mi"], "required": True},
    "to_unit": {"type": "string", "enum": ["mm", "cm", "m", "km", "in", "ft", "mi"], "required": True},
}

METRES = {"mm": 0.001, "cm": 0.01, "m": 1.0, "km": 1000.0, "in": 0.0254, "ft": 0.3048, "mi": 1609.344}


def execute(params):
    if params["from_unit"] == params["to_unit"]:
        return {"status": "error", "error": "from_unit and to_unit are the same unit"}
    result = params["value"] * METRES[params["from_unit"]] / METRES[params["to_unit"]]
    return {"status": "success", "data": {"value": round(result, 6), "unit": params["to_unit"]}}
