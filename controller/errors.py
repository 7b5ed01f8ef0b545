# SPDX-License-Identifier: Apache-2.0
"""Errors of the controller; one base class so a CLI can report all of them alike."""

from __future__ import annotations


class ControllerError(Exception):
    """Base of every error the controller reports to a user."""


class ConfigError(ControllerError, ValueError):
    """The configuration is invalid; the message names the offending field, job or worker."""


class P4InfoError(ControllerError, ValueError):
    """The P4Info lacks (or mistypes) something the controller needs."""


class SwitchError(ControllerError, RuntimeError):
    """The switch refused or failed a request."""


class SwitchUnreachable(SwitchError, ConnectionError):
    """No P4Runtime server answered at the address within the timeout."""


class NotPrimary(SwitchError):
    """Another controller is primary for the device, so writes would be refused."""


class WriteError(SwitchError):
    """Some updates of a Write were refused; `failures` holds (description, code name, message)."""

    def __init__(self, message: str, failures: list[tuple[str, str, str]]) -> None:
        super().__init__(message)
        self.failures = failures


class ResetError(SwitchError):
    """A register read or write over BMv2's thrift port failed (unreachable, timed out,
    cut short, or refused by the switch); the message names host:port and the register."""
