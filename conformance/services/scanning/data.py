"""The scanning simulator's banner and DNS database: small, deterministic, built once per process.

A dozen hand-written hosts exercise every documented field (protocol blocks, udp, history,
tags, the metadata object); a few hundred synthetic hosts, made by formula from their index,
let one query match more than a page of results so paging and the per-page cost are real.
Every address and name is from documentation ranges (RFC 5737) and reserved example domains.
The query language that selects banners is in ``scanning_query``.
Nothing here reads the contract: it is the simulator's own data.
"""

from __future__ import annotations

import ipaddress
from datetime import datetime, timezone
from functools import lru_cache
from typing import Any

__all__ = [
    "DNS_TYPES", "FACETS", "FILTERS", "METADATA_KEY", "PORTS", "PROTOCOLS", "SEGMENT",
    "Database", "database",
]

# SIM-CHOICE: the document calls the first path segment "svc" (the service's own name, not
# shown); the simulator serves it literally and names the banner metadata key after it.
SEGMENT = "svc"
METADATA_KEY = "_" + SEGMENT
DNS_TYPES = ("A", "AAAA", "CNAME", "NS", "SOA", "MX", "TXT")

# SIM-CHOICE: which filters and facets exist is not shown; these cover the banner fields.
FILTERS = (
    "asn", "city", "country", "domain", "hostname", "ip", "isp", "net", "org", "os", "port",
    "product", "tag", "transport", "version",
)
FACETS = (
    "asn", "city", "country", "domain", "isp", "org", "os", "port", "product", "tag",
    "transport", "version",
)
PROTOCOLS: dict[str, str] = {
    "http": "Hypertext Transfer Protocol banner grabber",
    "https": "HTTP over TLS banner grabber",
    "ssh": "Secure Shell server banner",
    "dns-udp": "DNS resolver probe over UDP",
    "ntp": "Network Time Protocol status query",
    "snmp": "SNMP v1/v2c public community probe",
    "telnet": "Telnet login banner",
    "mqtt": "MQTT broker connect probe",
    "redis": "Redis INFO probe",
    "mysql": "MySQL server greeting",
    "smtp": "SMTP EHLO banner",
}

# Fixed epochs (seconds) for data timestamps: before the simulated clock's start, so
# "last seen" is always in the past; history banners are a year older.
_SEEN = 1_790_000_000
_YEAR = 365 * 24 * 3600

_PLACES = (
    ("US", "USA", "United States", "New York", "NY", "10001", 501, 212, 40.71, -74.01),
    ("DE", "DEU", "Germany", "Berlin", "BE", "10115", None, None, 52.52, 13.40),
    ("JP", "JPN", "Japan", "Tokyo", "13", "100-0001", None, None, 35.68, 139.69),
    ("BR", "BRA", "Brazil", "Sao Paulo", "SP", "01000-000", None, None, -23.55, -46.63),
    ("FR", "FRA", "France", "Paris", "IDF", "75001", None, None, 48.86, 2.35),
    ("AU", "AUS", "Australia", "Sydney", "NSW", "2000", None, None, -33.87, 151.21),
)
_ORGS = (
    ("Example Hosting", "Example Hosting LLC", "AS64500"),
    ("Documentation Cloud", "Documentation Cloud Inc", "AS64501"),
    ("Test Net Telecom", "Test Net Telecom", "AS64502"),
    ("Reserved Networks", "Reserved Networks GmbH", "AS64503"),
    ("Sample ISP", "Sample ISP", "AS64504"),
)

# (port, transport, product, version, module, data, extra blocks, older version or None)
_Service = tuple[int, str, str, str, str, str, dict[str, Any], "str | None"]


def _http(server: str, title: str, status: int = 200) -> dict[str, Any]:
    return {"http": {"status": status, "title": title, "server": server,
                     "host": "", "html_hash": len(title) * 7919}}


def _http_data(server: str) -> str:
    return f"HTTP/1.1 200 OK\r\nServer: {server}\r\nContent-Type: text/html\r\n\r\n"


# Hand-written hosts: (last octet, place, org, os, tags, hostnames, services).
_HAND: tuple[tuple[int, int, int, str | None, list[str], list[str], list[_Service]], ...] = (
    (10, 0, 0, "Linux", ["cloud"], ["www.example.com"], [
        (80, "tcp", "nginx", "1.24.0", "http", _http_data("nginx/1.24.0"),
         _http("nginx/1.24.0", "Example Domain"), "1.18.0"),
        (443, "tcp", "nginx", "1.24.0", "https", _http_data("nginx/1.24.0"),
         _http("nginx/1.24.0", "Example Domain"), None),
    ]),
    (20, 1, 1, "Linux", [], ["ns1.example.com"], [
        (53, "udp", "BIND", "9.18.24", "dns-udp", "\nRecursion: enabled\nResolver name: ns1",
         {"dns": {"resolver_hostname": "ns1.example.com", "recursive": True,
                  "resolver_id": None, "software": "9.18.24"}}, "9.16.1"),
    ]),
    (30, 2, 2, "Ubuntu", [], ["bastion.example.net"], [
        (22, "tcp", "OpenSSH", "9.6p1", "ssh", "SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13",
         {}, "8.9p1"),
    ]),
    (40, 1, 3, "Windows", [], ["intranet.example.org"], [
        (80, "tcp", "Microsoft IIS httpd", "10.0", "http", _http_data("Microsoft-IIS/10.0"),
         _http("Microsoft-IIS/10.0", "IIS Windows Server"), None),
        (3389, "tcp", "Remote Desktop Protocol", "", "rdp", "\x03\x00\x00\x13", {}, None),
    ]),
    (50, 3, 4, "Linux", ["database"], [], [
        (3306, "tcp", "MySQL", "8.0.36", "mysql", "J\x00\x00\x00\n8.0.36", {}, None),
    ]),
    (60, 4, 0, None, ["database"], [], [
        (6379, "tcp", "Redis key-value store", "7.2.4", "redis", "redis_version:7.2.4", {}, None),
    ]),
    (70, 5, 4, None, ["iot"], [], [
        (161, "udp", "SNMP", "v2c", "snmp", "sysDescr: Example switch", {}, None),
    ]),
    (80, 0, 1, "Debian", [], ["mail.example.net"], [
        (8080, "tcp", "Apache httpd", "2.4.58", "http", _http_data("Apache/2.4.58 (Debian)"),
         _http("Apache/2.4.58 (Debian)", "Webmail"), "2.4.54"),
        (25, "tcp", "Postfix smtpd", "", "smtp", "220 mail.example.net ESMTP Postfix", {}, None),
    ]),
    (90, 2, 2, None, ["iot"], [], [
        (1883, "tcp", "Mosquitto", "2.0.18", "mqtt", "MQTT Connection Code: 0", {}, None),
    ]),
    (100, 3, 3, None, ["iot", "honeypot"], [], [
        (23, "tcp", "BusyBox telnetd", "", "telnet", "\xff\xfd\x01login: ", {}, None),
    ]),
    (110, 4, 1, "Linux", ["cloud"], ["search.example.org"], [
        (9200, "tcp", "Elastic", "8.12.0", "http", _http_data("elasticsearch"),
         _http("", "", 200), None),
    ]),
    (120, 2, 0, None, [], ["time.example.com"], [
        (123, "udp", "NTP", "4", "ntp", "\nntp.version: 4\nstratum: 2", {}, None),
    ]),
)

# Synthetic hosts: (product, version, port, module) by index modulo 3. 360 hosts give each of
# nginx, Apache httpd and OpenSSH 120 current banners: more than one page.
_SYNTH_KINDS = (
    ("nginx", "1.25.3", 80, "http"),
    ("Apache httpd", "2.4.57", 443, "https"),
    ("OpenSSH", "8.9p1", 22, "ssh"),
)
SYNTHETIC_HOSTS = 360
_SYNTH_A_RECORDS = 240


def _synthetic_ip(index: int) -> str:
    return f"198.51.100.{index}" if index < 256 else f"203.0.113.{index - 256}"


def _iso(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")


class Database:
    """Banners (current and historical) by IP, and DNS records by domain."""

    def __init__(self) -> None:
        self.hosts: dict[str, dict[str, Any]] = {}
        self.current: list[dict[str, Any]] = []
        self.history: dict[str, list[dict[str, Any]]] = {}
        self.latest: dict[str, list[dict[str, Any]]] = {}
        self.dns: dict[str, list[dict[str, Any]]] = {}
        self._counter = 0
        for octet, place, org, os_name, tags, names, services in _HAND:
            self._add_host(f"192.0.2.{octet}", place, org, os_name, tags, names, services)
        for i in range(SYNTHETIC_HOSTS):
            product, version, port, module = _SYNTH_KINDS[i % 3]
            server = f"{product}/{version}"
            extra = _http(server, f"Site {i}") if module in ("http", "https") else {}
            data = _http_data(server) if extra else f"SSH-2.0-OpenSSH_{version}"
            names = [f"host-{i:03d}.example.com"] if i < _SYNTH_A_RECORDS else []
            self._add_host(_synthetic_ip(i), i % len(_PLACES), i % len(_ORGS), "Linux",
                           ["cloud"] if i % 5 == 0 else [], names,
                           [(port, "tcp", product, version, module, data, extra, None)])
        self._build_dns()

    # -- banners -------------------------------------------------------------------------
    def _add_host(self, ip: str, place: int, org: int, os_name: str | None, tags: list[str],
                  names: list[str], services: list[_Service]) -> None:
        cc, cc3, country, city, region, postal, dma, area, lat, lon = _PLACES[place]
        org_name, isp, asn = _ORGS[org]
        location = {"city": city, "region_code": region, "area_code": area, "longitude": lon,
                    "latitude": lat, "postal_code": postal, "dma_code": dma,
                    "country_code": cc, "country_code3": cc3, "country_name": country}
        domains = sorted({n.split(".", 1)[1] for n in names})
        common = {"ip": int(ipaddress.ip_address(ip)), "ip_str": ip, "org": org_name, "isp": isp,
                  "asn": asn, "os": os_name, "hostnames": list(names), "domains": domains}
        banners: list[dict[str, Any]] = []
        for port, transport, product, version, module, data, extra, older in services:
            for when, ver in ((_SEEN, version), (_SEEN - _YEAR, older)):
                if ver is None:
                    continue
                self._counter += 1
                banner = {
                    **common, "port": port, "transport": transport, "timestamp": _iso(when),
                    "hash": (self._counter * 2_654_435_761) % 2**31, "data": data,
                    "product": product, "version": ver,
                    "cpe": [f"cpe:/a:{product.lower().replace(' ', '_')}:{ver}"] if ver else [],
                    "opts": {}, "location": dict(location), "tags": list(tags),
                    METADATA_KEY: {"id": f"banner-{self._counter:06d}", "module": module,
                                   "crawler": f"crawler-{self._counter % 7:02d}",
                                   "ptr": bool(names), "options": {}},
                    **extra,
                }
                banners.append(banner)
                if when == _SEEN:
                    self.current.append(banner)
        self.history[ip] = banners
        self.latest[ip] = [b for b in banners if b["timestamp"] == _iso(_SEEN)]
        self.hosts[ip] = {
            **common, "tags": list(tags), "ports": sorted({s[0] for s in services}),
            "country_code": cc, "country_code3": cc3, "country_name": country, "city": city,
            "region_code": region, "postal_code": postal, "dma_code": dma, "area_code": area,
            "latitude": lat, "longitude": lon, "last_update": _iso(_SEEN),
        }

    # -- DNS -----------------------------------------------------------------------------
    def _build_dns(self) -> None:
        seen, old = _iso(_SEEN), _iso(_SEEN - _YEAR)
        for ip, host in self.hosts.items():
            for name in host["hostnames"]:
                sub, domain = name.split(".", 1)
                self._dns(domain, sub, "A", ip, seen)
        for domain in ("example.com", "example.net", "example.org"):
            self._dns(domain, "", "NS", f"ns1.{domain}", seen)
            soa = f"ns1.{domain} hostmaster.{domain} 1 7200 900 1209600 86400"
            self._dns(domain, "", "SOA", soa, seen)
            self._dns(domain, "", "MX", f"10 mail.{domain}", seen)
            self._dns(domain, "", "TXT", "v=spf1 -all", seen)
            self._dns(domain, "www", "AAAA", "2001:db8::10", seen)
            self._dns(domain, "web", "CNAME", f"www.{domain}", seen)
            # Historical entries appear only with history=true.
            self._dns(domain, "legacy", "A", "192.0.2.250", old, current=False)

    def _dns(self, domain: str, sub: str, rtype: str, value: str, seen: str,
             current: bool = True) -> None:
        self.dns.setdefault(domain, []).append(
            {"subdomain": sub, "type": rtype, "value": value, "last_seen": seen,
             "_current": current}
        )

    def resolve(self, hostname: str) -> str | None:
        sub, _, domain = hostname.lower().partition(".")
        for rec in self.dns.get(domain, []):
            if rec["_current"] and rec["type"] == "A" and rec["subdomain"] == sub:
                return str(rec["value"])
        return None

    def reverse(self, ip: str) -> list[str]:
        # Host hostnames and A records come from one source, so resolve and reverse agree.
        return list(self.hosts.get(ip, {}).get("hostnames", []))


# SIM-CHOICE: the port list is the ports present in the database plus a few common ones.
PORTS = sorted({22, 23, 25, 53, 80, 123, 161, 443, 1883, 3306, 3389, 6379, 8080, 9200, 8443, 5432})


@lru_cache(maxsize=1)
def database() -> Database:
    """Built once and shared read-only: simulators copy what they change."""
    return Database()
