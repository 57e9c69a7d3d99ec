"""Allure labels and attachments, the per-rule summary, and the triage file."""
