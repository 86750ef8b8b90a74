"""An example MCP server for the nb_agent demo: a warehouse system with many tools.

Run by the agent over stdio (see the .mcp.json the notebook writes):

    python warehouse_server.py

A few tools answer from the small in-memory data below; the other ~40 are stubs that
only say what they would do. They are there because a real company server has that many
tools, which is what ToolSearch is for: the model sees the tools' names only after it
searches, not all their definitions in every request.
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

READ_ONLY = ToolAnnotations(read_only_hint=True)

SHIPMENTS = {
    "ZX-4471": {"status": "out for delivery", "carrier": "NordPost", "from": "Rotterdam", "eta": "today by 18:00"},
    "ZX-4502": {"status": "held at customs", "carrier": "AirCargo One", "from": "Shenzhen", "eta": "unknown"},
}
STOCK = {
    "LAMP-OAK-01": {"Rotterdam": 42, "Lyon": 3, "Leipzig": 0},
    "CHAIR-ASH-02": {"Rotterdam": 7, "Lyon": 19, "Leipzig": 25},
}
RESERVATIONS: list[dict[str, object]] = []

server = MCPServer(
    name="warehouse",
    instructions="Warehouse system of the demo company: shipments, stock, orders, suppliers, returns and invoices.",
    log_level="WARNING",
)


@server.tool(annotations=READ_ONLY)
def track_shipment(tracking_id: str) -> str:
    """Track a shipment by its tracking id (e.g. ZX-4471): status, carrier, origin warehouse and ETA."""
    shipment = SHIPMENTS.get(tracking_id.strip().upper())
    if shipment is None:
        return f"No shipment with tracking id {tracking_id}."
    return "\n".join(f"{key}: {value}" for key, value in {"tracking id": tracking_id, **shipment}.items())


@server.tool(annotations=READ_ONLY)
def get_stock_level(sku: str) -> str:
    """Units in stock for a SKU in each warehouse."""
    levels = STOCK.get(sku.strip().upper())
    if levels is None:
        return f"Unknown SKU {sku}."
    return "\n".join(f"{warehouse}: {units}" for warehouse, units in levels.items())


@server.tool()
def reserve_stock(sku: str, warehouse: str, units: int, order_id: str) -> str:
    """Reserve units of a SKU in one warehouse for an order (they can no longer be sold to anyone else)."""
    levels = STOCK.get(sku.strip().upper())
    if levels is None or warehouse not in levels:
        return f"Unknown SKU {sku} or warehouse {warehouse}."
    if levels[warehouse] < units:
        return f"Only {levels[warehouse]} units of {sku} in {warehouse}; nothing reserved."
    levels[warehouse] -= units
    RESERVATIONS.append({"sku": sku, "warehouse": warehouse, "units": units, "order_id": order_id})
    return f"Reserved {units} × {sku} in {warehouse} for order {order_id} (reservation R-{len(RESERVATIONS):04d})."


STUBS = {
    # name: (description, read-only?)
    "list_warehouses": ("List the company's warehouses with their addresses and opening hours.", True),
    "get_warehouse_capacity": ("Free pallet places in a warehouse.", True),
    "transfer_stock": ("Move units of a SKU from one warehouse to another.", False),
    "release_reservation": ("Cancel a stock reservation and return the units to stock.", False),
    "count_inventory": ("Start a physical inventory count for a warehouse aisle.", False),
    "list_low_stock": ("SKUs whose stock is below their reorder point.", True),
    "forecast_demand": ("Forecast the next 8 weeks of demand for a SKU.", True),
    "export_inventory_csv": ("Export the full inventory of a warehouse as CSV.", True),
    "create_purchase_order": ("Order goods from a supplier.", False),
    "approve_purchase_order": ("Approve a purchase order above the spending limit.", False),
    "list_purchase_orders": ("Open purchase orders, filtered by supplier or status.", True),
    "list_suppliers": ("Suppliers, with their lead times and ratings.", True),
    "get_supplier": ("One supplier's contact details and terms.", True),
    "rate_supplier": ("Record a delivery rating for a supplier.", False),
    "get_order": ("A customer order with its lines, payment and shipping state.", True),
    "list_orders": ("Customer orders, filtered by date, status or customer.", True),
    "cancel_order": ("Cancel a customer order that has not shipped yet.", False),
    "update_order_address": ("Change the delivery address of an order that has not shipped yet.", False),
    "split_order": ("Split an order into two shipments.", False),
    "refund_order": ("Refund a customer order, fully or partly.", False),
    "schedule_pickup": ("Book a carrier pickup at a warehouse dock.", False),
    "print_shipping_label": ("Create the shipping label PDF for a parcel.", False),
    "estimate_delivery_date": ("Estimate when a parcel sent today would arrive.", True),
    "list_carriers": ("Carriers the company ships with, per country.", True),
    "get_carrier_rates": ("Shipping rates of a carrier for a weight and destination.", True),
    "report_lost_parcel": ("Open a claim with the carrier for a lost parcel.", False),
    "list_returns": ("Customer returns waiting for inspection.", True),
    "approve_return": ("Accept a customer return and trigger the refund.", False),
    "inspect_return": ("Record the inspection result of a returned item.", False),
    "get_customer": ("A customer's profile, addresses and order history.", True),
    "create_customer": ("Create a customer account.", False),
    "merge_customers": ("Merge two duplicate customer accounts.", False),
    "list_invoices": ("Invoices, filtered by customer, date or payment state.", True),
    "send_invoice": ("Email an invoice to the customer.", False),
    "mark_invoice_paid": ("Record the payment of an invoice.", False),
    "get_exchange_rate": ("Today's exchange rate between two currencies.", True),
    "list_price_rules": ("Active discounts and price rules.", True),
    "set_price": ("Change the list price of a SKU.", False),
    "get_sales_report": ("Revenue and units sold per SKU for a period.", True),
    "list_employees_on_shift": ("Warehouse staff on shift now.", True),
}


def _stub(name: str, description: str) -> object:
    def stub(reference: str = "") -> str:
        return f"{name} is a stub in this demo server; it would: {description[0].lower()}{description[1:]}"

    return stub


for _name, (_description, _read_only) in STUBS.items():
    server.add_tool(_stub(_name, _description), name=_name, description=_description, annotations=READ_ONLY if _read_only else None)


if __name__ == "__main__":
    server.run("stdio")
