"""What an operating system's defaults let a TCP window grow to: "default buffers" as an input.

Linux (``Documentation/networking/ip-sysctl.rst`` and ``tcp(7)``):

- ``net.ipv4.tcp_rmem`` = min, default, max of the receive buffer autotuning may choose:
  ``4096 131072 6291456`` since Linux 4.20 (commit a337531b942b, "tcp: up initial rmem to 128KB
  and SYN rwin to around 64KB"; ``4096 87380 6291456`` before); the max is "between 131072 and
  6MB, depending on RAM size" (6 MiB on any host with a few GiB of memory).  Per network
  namespace since Linux 4.15 (commit 356d1833b638).
- ``net.ipv4.tcp_wmem`` = ``4096 16384 4194304`` (max "between 64K and 4MB, depending on RAM").
- ``net.core.rmem_max`` = ``212992``: the cap on what setsockopt(SO_RCVBUF) may ask for (the
  kernel doubles the request); an application that sets its buffer loses autotuning.
- The share of the buffer the window may use: ``1 - 2^-tcp_adv_win_scale`` with the sysctl at 1
  (half) from Linux 3.4 to 6.5, at 2 (three quarters) before 3.4; since Linux 6.6 (commit
  dfa2f0483360, "tcp: get rid of sysctl_tcp_adv_win_scale") each socket measures its own
  payload-to-memory ratio (skb->len / skb->truesize), starting at one half.

Layer 1: plain data and arithmetic, no I/O (the live values are read by
:mod:`pinchpoint.measure.probe`).
"""

from __future__ import annotations

from dataclasses import dataclass

#: Operating systems whose defaults are known.
OPERATING_SYSTEMS = ("linux",)


@dataclass(frozen=True)
class BufferDefaults:
    """One OS's TCP buffer settings [B] and the share of a buffer the window may use."""

    os: str
    tcp_rmem: tuple[int, int, int]
    tcp_wmem: tuple[int, int, int]
    rmem_max: int
    wmem_max: int
    window_share: float
    kernels: str  # which kernel versions these figures are for
    source: str  # "defaults" or where live values were read

    @property
    def autotuned_window_bytes(self) -> float:
        """The largest window autotuning reaches: tcp_rmem max x the window's share [B]."""
        return self.tcp_rmem[2] * self.window_share

    @property
    def send_buffer_bytes(self) -> float:
        """The largest send buffer autotuning reaches (tcp_wmem max) [B]."""
        return float(self.tcp_wmem[2])

    def describe(self) -> str:
        return (f"{self.os} {self.kernels} ({self.source}): tcp_rmem max {self.tcp_rmem[2]} B x "
                f"{self.window_share:g} = window {self.autotuned_window_bytes:.0f} B; tcp_wmem max "
                f"{self.tcp_wmem[2]} B; rmem_max {self.rmem_max} B")

    def to_dict(self) -> dict:
        return {"os": self.os, "tcp_rmem_bytes": list(self.tcp_rmem), "tcp_wmem_bytes": list(self.tcp_wmem),
                "rmem_max_bytes": self.rmem_max, "wmem_max_bytes": self.wmem_max,
                "window_share": self.window_share, "kernels": self.kernels, "source": self.source,
                "autotuned_window_bytes": self.autotuned_window_bytes}


def window_share(kernel: tuple[int, int] | None, adv_win_scale: int | None = None) -> float:
    """The share of a receive buffer Linux advertises as window [-].

    ``kernel`` is (major, minor); None means a current kernel.  Before 6.6 the share is
    1 - 2^-tcp_adv_win_scale (the sysctl's default: 2 before 3.4, 1 after); from 6.6 on the
    socket measures it and starts at one half (the sysctl is ignored).
    """
    if kernel is not None and kernel < (6, 6):
        scale = adv_win_scale if adv_win_scale is not None else (2 if kernel < (3, 4) else 1)
        return 1 - 2.0 ** (-scale)
    if kernel is None and adv_win_scale is not None:
        return 1 - 2.0 ** (-adv_win_scale)
    return 0.5


def linux_defaults(kernel: tuple[int, int] | None = None) -> BufferDefaults:
    """Linux's default buffer settings for a kernel (major, minor); None: a current kernel."""
    default_rmem = 87380 if kernel is not None and kernel < (4, 20) else 131072
    if kernel is None:
        kernels = "4.20 and later"
    elif kernel < (3, 4):
        kernels = "before 3.4"
    elif kernel < (4, 20):
        kernels = "3.4 to 4.19"
    elif kernel < (6, 6):
        kernels = "4.20 to 6.5"
    else:
        kernels = "6.6 and later"
    return BufferDefaults("linux", (4096, default_rmem, 6291456), (4096, 16384, 4194304), 212992, 212992,
                          window_share(kernel), kernels, "defaults")


def defaults_for(os_name: str, kernel: tuple[int, int] | None = None) -> BufferDefaults:
    """The defaults of ``os_name`` (one of :data:`OPERATING_SYSTEMS`)."""
    if os_name == "linux":
        return linux_defaults(kernel)
    raise ValueError(f"no defaults known for {os_name!r} (known: {', '.join(OPERATING_SYSTEMS)})")


def kernel_version(release: str | None) -> tuple[int, int] | None:
    """(major, minor) of a kernel release string such as '6.1.0-18-amd64' (None if unreadable)."""
    if not release:
        return None
    parts = release.split(".")
    try:
        return int(parts[0]), int("".join(ch for ch in parts[1] if ch.isdigit()) or 0)
    except (IndexError, ValueError):
        return None
