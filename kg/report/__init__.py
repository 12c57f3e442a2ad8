"""Report stage: what the graph tells a researcher, as one self-contained HTML page and a Markdown file."""

from kg.report.context import ReportFacts, report_facts
from kg.report.write import ReportResult, render_report, write_report

__all__ = ["ReportFacts", "ReportResult", "render_report", "report_facts", "write_report"]
