"""`cachetui serve`: the browser as a web page, one app per visitor, for a site's own mirror."""

from __future__ import annotations

import argparse
import ipaddress
import os
import sys
from typing import Any

from cachetui.cli.options import EXIT_OK, SAMPLE, add_inputs, check_inputs, fail_usage, load_options, load_or_exit
from cachetui.cli.serve_defaults import DEFAULT_HOST, DEFAULT_IDLE_TIMEOUT_S, DEFAULT_MAX_SESSIONS, DEFAULT_PORT
from cachetui.cli.served_hosts import SERVED_HOSTS, public_origin
from cachetui.core.load import SPACK_MIRRORS, local_input
from cachetui.present.format import counted
from cachetui.present.inert import inert
from cachetui.present.serve.served import Labels, ServeConfig, source_labels


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="serve the browser as a web page (one session per visitor)",
        description="Serve the browser as a web page: each visitor gets a session of their own, bound to "
                    f"{DEFAULT_HOST} unless --host says otherwise. Visitors see sources by label (NAME=SOURCE, "
                    "else the last part of the location), never the server's paths; exports download in their "
                    "browser, copies go to their browser's clipboard (on https or localhost). It "
                    f"{SERVED_HOSTS}: a request for any other host is refused (421), and so is a websocket "
                    "from any page but its own (403).",
    )
    add_inputs(parser, unnamed=SAMPLE)
    parser.add_argument("--host", default=DEFAULT_HOST,
                        help=f"the address to listen on (default {DEFAULT_HOST}: this machine only)")
    parser.add_argument("--port", type=_port, default=DEFAULT_PORT,
                        help=f"default {DEFAULT_PORT}; 0 picks a free one")
    parser.add_argument("--public-url", metavar="URL",
                        help="the address browsers use, behind a reverse proxy that passes the browser's Host "
                             "header; the only host served (default: the address it listens on)")
    parser.add_argument("--max-sessions", type=_count, default=DEFAULT_MAX_SESSIONS, metavar="N",
                        help=f"at most N visitors at once (default {DEFAULT_MAX_SESSIONS}); "
                             "the next is asked to try later")
    parser.add_argument("--idle-timeout", type=_seconds, default=DEFAULT_IDLE_TIMEOUT_S, metavar="S",
                        help=f"close a session whose visitor sent no key, click or resize for S seconds, saying so "
                             f"on its page (default {DEFAULT_IDLE_TIMEOUT_S}): its place and memory go to the next")
    parser.add_argument("--mirror-url", action="append", default=[], metavar="LABEL=URL",
                        help="the URL visitors add with 'spack mirror add' for a source read from a local path "
                             "(without one, the copy menu leaves that line out); repeatable")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        from cachetui.cli.web import SessionServer, session_pythonpath  # aiohttp and textual-serve: `serve` only
    except ImportError as exc:
        fail_usage(f"'cachetui serve' needs textual-serve ({exc.name} is missing): pip install 'cachetui[serve]'")
    if args.public_url is not None:
        try:
            public_origin(args.public_url)
        except ValueError:
            fail_usage(f"--public-url takes the http(s) URL browsers use, such as https://browse.example.org: "
                       f"{args.public_url!r}")
    inputs = check_inputs(args)
    labels = source_labels(inputs)
    config = ServeConfig(inputs, load_options(args), mirror_urls=mirror_urls(args.mirror_url, inputs))
    if not args.no_cache:
        # Loaded once here, so each visitor's session starts from the warm cache, not from a cold parse.
        corpus = load_or_exit(args)
        for problem in corpus.report.errors:
            print(f"cachetui serve: {inert(Labels(inputs).text(problem.described()))}", file=sys.stderr)
        del corpus  # the sessions map the cache file; the server keeps no copy of its own while it serves
    _, left_out = session_pythonpath(os.environ.get("PYTHONPATH", ""))
    if left_out:
        print(inert(f"cachetui serve: warning: PYTHONPATH has entries relative to the working directory "
                    f"({', '.join(map(repr, left_out))}), where this server looks for modules too; its sessions "
                    "start without them"), file=sys.stderr)
    if not is_loopback(args.host):
        print(inert(f"cachetui serve: warning: listening on {args.host}: anyone who can reach this port can browse "
                    f"these sources ({', '.join(labels)})"), file=sys.stderr)
    server = SessionServer(config, host=args.host, port=args.port, public_url=args.public_url,
                           title=page_title(labels), max_sessions=args.max_sessions, idle_timeout=args.idle_timeout)

    def started(url: str) -> None:
        most = counted(args.max_sessions, "session")
        print(inert(f"cachetui serve: {url} ({', '.join(labels)}; at most {most}); Ctrl+C stops"), flush=True)
        if is_every_address(args.host) and args.public_url is None:
            port = url.rpartition(":")[2]
            print(f"cachetui serve: also at this machine's other addresses (http://ADDRESS:{port}), not at its "
                  "names: give --public-url to serve a name", file=sys.stderr)

    server.run(started)
    return EXIT_OK


def page_title(labels: list[str]) -> str:
    return "cachetui: " + ", ".join(labels)


def mirror_urls(pairs: list[str], inputs: list[str]) -> dict[str, str]:
    """`--mirror-url LABEL=URL`: LABEL names a source read from a local path (or a mirror of the
    server's Spack configuration, by its name), and URL is a URL."""
    local = {label for label, typed in zip(source_labels(inputs), inputs) if local_input(typed) is not None}
    any_name = any(typed.startswith(SPACK_MIRRORS) for typed in inputs)  # its mirrors' names are not known yet
    urls = {}
    for pair in pairs:
        label, equals, url = pair.partition("=")
        if not equals or not label or "://" not in url:
            fail_usage(f"--mirror-url takes LABEL=URL, such as site=https://mirror.example.org/spack: {pair!r}")
        if label not in local and not any_name:
            known = ", ".join(sorted(local)) or "none"
            fail_usage(f"--mirror-url {label}: no source read from a local path has that label "
                       f"(those that do: {known})")
        urls[label] = url
    return urls


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to any address


def is_every_address(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return False


def _port(text: str) -> int:
    return _whole_number(text, "port number", 0, 65535, "a port is 0 to 65535")


def _seconds(text: str) -> int:
    return _whole_number(text, "whole number of seconds", 1, None, "at least 1 second")


def _count(text: str) -> int:
    return _whole_number(text, "whole number", 1, None, "at least 1")


def _whole_number(text: str, what: str, least: int, most: int | None, bounds: str) -> int:
    """An option's whole number within its bounds, else argparse's one-line usage error."""
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a {what}: {text!r}") from None
    if number < least or (most is not None and number > most):
        raise argparse.ArgumentTypeError(bounds)
    return number
