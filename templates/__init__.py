"""Jinja templates for generated modules (package data)."""
