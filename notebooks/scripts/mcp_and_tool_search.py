"""The model's side of mcp_and_tool_search.ipynb (see _common.py and record.py)."""

from _common import text, tool_use, turn


def turns() -> list:
    return [
        # Finding the tracking tool
        turn(lambda cwd: [
            text("I'll look for a shipment-tracking tool."),
            tool_use("ToolSearch", {"query": "track shipment parcel"}, id="toolu_mcp_01"),
        ]),
        turn(lambda cwd: [tool_use("mcp__warehouse__track_shipment", {"tracking_id": "ZX-4471"}, id="toolu_mcp_02")]),
        turn(lambda cwd: [text(
            "Parcel **ZX-4471** is **out for delivery** with NordPost and should arrive **today by 18:00**. "
            "It left from the **Rotterdam** warehouse."
        )]),
        # Reserving stock: two tools found at once, the second one asks
        turn(lambda cwd: [tool_use("ToolSearch", {"query": "stock level reserve"}, id="toolu_mcp_03")]),
        turn(lambda cwd: [tool_use("mcp__warehouse__get_stock_level", {"sku": "LAMP-OAK-01"}, id="toolu_mcp_04")]),
        turn(lambda cwd: [
            text("Only Rotterdam has 5 or more (42 in stock), so I'll reserve them there."),
            tool_use(
                "mcp__warehouse__reserve_stock",
                {"sku": "LAMP-OAK-01", "warehouse": "Rotterdam", "units": 5, "order_id": "8812"},
                id="toolu_mcp_05",
            ),
        ]),
        turn(lambda cwd: [text(
            "Reserved **5 × LAMP-OAK-01** in **Rotterdam** for order 8812 (reservation R-0001). "
            "Lyon had only 3 and Leipzig none."
        )]),
    ]
