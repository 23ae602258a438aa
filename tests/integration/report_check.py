#!/usr/bin/env python3
"""Checks the DOM that headless Chromium rendered from an nfsagent report.

Usage: report_check.py DOM_FILE EXPECT_JSON

EXPECT_JSON holds "bars" ({"profile|group|dir": median IOPS}), "lat"
({"profile|group|dir|pct": median µs}, a sample of the latency points),
"findings" (how many), "few" (profiles whose section must say that there
were too few runs) and "text" (strings the page must show).  Prints one
line per problem and exits 1 if there was any.
"""
import json
import sys
from html.parser import HTMLParser


class Dom(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.elements = []   # (tag, attrs) in document order
        self.text = []
        self.section = None  # data-profile of the enclosing profile section
        self.section_text = {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.elements.append((tag, a))
        if tag == "section":
            self.section = a.get("data-profile")

    def handle_endtag(self, tag):
        if tag == "section":
            self.section = None

    def handle_data(self, data):
        self.text.append(data)
        if self.section is not None:
            self.section_text[self.section] = self.section_text.get(self.section, "") + data


def having(dom, tag, cls):
    return [a for t, a in dom.elements if t == tag and cls in (a.get("class") or "").split()]


def close(a, b):
    return abs(a - b) <= 1e-6 * max(1.0, abs(b))


def check(dom, want):
    problems = []
    bars = having(dom, "rect", "bar")
    got = {"|".join((a.get("data-profile"), a.get("data-group"), a.get("data-dir"))): a for a in bars}
    if len(bars) != len(want["bars"]):
        problems.append(f"{len(bars)} bars, expected {len(want['bars'])}: {sorted(got)}")
    for key, value in want["bars"].items():
        a = got.get(key)
        if a is None:
            problems.append(f"no bar {key}")
        elif not close(float(a.get("data-value", "nan")), value):
            problems.append(f"bar {key} shows {a.get('data-value')}, expected {value}")
        elif float(a.get("height", 0)) <= 0:
            problems.append(f"bar {key} has no height")
    spreads = having(dom, "path", "spread")
    if len(spreads) != len(bars):
        problems.append(f"{len(spreads)} spread markers for {len(bars)} bars")
    profiles = {k.split("|")[0] for k in want["bars"]}
    for kind in ("iops", "latency"):
        charts = {a.get("data-profile") for a in having(dom, "svg", kind)}
        if charts != profiles:
            problems.append(f"{kind} charts for {sorted(charts)}, expected {sorted(profiles)}")
    for svg in ("axis", "xlabel", "ytitle"):
        if not any(svg in (a.get("class") or "").split() for _, a in dom.elements):
            problems.append(f"no {svg} in the charts")
    if len(having(dom, "g", "legend")) < 2 * len(profiles):
        problems.append("legends missing")
    points = {"|".join((a.get("data-profile"), a.get("data-group"), a.get("data-dir"), a.get("data-pct"))): a
              for a in having(dom, "circle", "lat")}
    for key, value in want["lat"].items():
        a = points.get(key)
        if a is None:
            problems.append(f"no latency point {key}")
        elif not close(float(a.get("data-value", "nan")), value):
            problems.append(f"latency point {key} shows {a.get('data-value')}, expected {value}")
    findings = having(dom, "div", "finding")
    if len(findings) != want["findings"]:
        problems.append(f"{len(findings)} findings, expected {want['findings']}")
    for profile in profiles:
        text = dom.section_text.get(profile, "")
        few = "too few runs to tell" in text.lower()
        if few != (profile in want["few"]):
            problems.append(f"profile {profile}: 'too few runs to tell' {'shown' if few else 'missing'}")
    page = "".join(dom.text)
    for text in want["text"]:
        if text not in page:
            problems.append(f"page does not show {text!r}")
    if any(t in ("script", "iframe", "img", "object", "embed") for t, _ in dom.elements):
        problems.append("the DOM holds an active element: some string was not escaped")
    return problems


def main():
    dom = Dom()
    with open(sys.argv[1], encoding="utf-8") as f:
        dom.feed(f.read())
    problems = check(dom, json.loads(sys.argv[2]))
    for p in problems:
        print(f"report_check: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
