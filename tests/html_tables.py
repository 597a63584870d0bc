"""One reader of the report pages' HTML for the tests: element ids, tag names and every table's
rows as cell texts, with each row's class (the binding row is marked with one)."""

from __future__ import annotations

from html.parser import HTMLParser


class HtmlTables(HTMLParser):
    """``ids`` {id: tag}, ``tags`` in document order, ``rows`` {table id: [[cell text, ...]]}
    (header row included; a table without an id is "t<n>") and ``row_classes`` beside them."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.ids: dict[str, str] = {}
        self.tags: list[str] = []
        self.rows: dict[str, list[list[str]]] = {}
        self.row_classes: dict[str, list[str | None]] = {}
        self._table = self._row = self._cell = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        if "id" in a:
            self.ids.setdefault(a["id"], tag)
        if tag == "table":
            self._table = a.get("id") or f"t{len(self.rows)}"
            self.rows.setdefault(self._table, [])
            self.row_classes.setdefault(self._table, [])
        elif tag == "tr" and self._table is not None:
            self._row = []
            self.row_classes[self._table].append(a.get("class"))
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.rows[self._table].append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)

    def body(self, table_id: str) -> list[tuple[list[str], bool]]:
        """Rows below the header that hold text: (cells, whether the row is marked binding)."""
        rows = zip(self.rows[table_id][1:], self.row_classes[table_id][1:])
        return [(cells, "binding" in (cls or "")) for cells, cls in rows if any(cells)]
