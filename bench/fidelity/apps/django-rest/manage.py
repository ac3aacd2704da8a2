#!/usr/bin/env python3
"""Django's command-line utility for the fidelity benchmark's blog API (bench/fidelity/apps/django-rest.ts)."""
import os
import sys


def main():
    os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'blogsite.settings')
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == '__main__':
    main()
