"""Report stage: what the graph tells a researcher, as one self-contained HTML page and a Markdown file."""

from kg.report.write import ReportResult, write_report

__all__ = ["ReportResult", "write_report"]
