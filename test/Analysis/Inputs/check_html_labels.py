"""Checks the SVG charts of a tfuse HTML report: no two labels overlap and
every label lies inside its chart.

Every <text> of the report states its position, font size and anchor, so its
box can be estimated from the coordinates alone (glyphs at most 0.62 em wide
in the sans-serif fonts browsers use; a rotation of -90 degrees turns the box
upright). Usage: check_html_labels.py report.html [more.html ...]
"""
import re
import sys
import xml.dom.minidom

EM_WIDTH = 0.62


def box(text):
    x = float(text.getAttribute("x"))
    y = float(text.getAttribute("y"))
    size = float(text.getAttribute("font-size"))
    label = "".join(n.data for n in text.childNodes if n.nodeType == n.TEXT_NODE)
    width = len(label) * EM_WIDTH * size
    anchor = text.getAttribute("text-anchor") or "start"
    left = {"start": x, "middle": x - width / 2, "end": x - width}[anchor]
    # The baseline is at y: the glyphs stand above it, descenders below.
    top, bottom = y - 0.8 * size, y + 0.2 * size
    if re.match(r"rotate\(-90", text.getAttribute("transform")):
        # rotate(-90 x y) maps (x + dx, y + dy) to (x + dy, y - dx).
        return (x - 0.8 * size, y - (left + width - x),
                x + 0.2 * size, y - (left - x)), label
    return (left, top, left + width, bottom), label


def overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def check(path):
    html = open(path, encoding="utf-8").read().replace("<!DOCTYPE html>", "")
    dom = xml.dom.minidom.parseString(html)
    problems, labels = [], 0
    for index, svg in enumerate(dom.getElementsByTagName("svg")):
        _, _, width, height = (float(v) for v in svg.getAttribute("viewBox").split())
        boxes = [box(t) for t in svg.getElementsByTagName("text")]
        labels += len(boxes)
        for (b, label) in boxes:
            if b[0] < 0 or b[1] < 0 or b[2] > width or b[3] > height:
                problems.append("svg %d: '%s' leaves the chart: %s" % (index, label, b))
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                if overlap(boxes[i][0], boxes[j][0]):
                    problems.append("svg %d: '%s' overlaps '%s'"
                                    % (index, boxes[i][1], boxes[j][1]))
    for problem in problems:
        print("%s: %s" % (path, problem))
    print("%s: %d charts, %d labels, %d overlaps or overflows"
          % (path, len(dom.getElementsByTagName("svg")), labels, len(problems)))
    return not problems


if __name__ == "__main__":
    results = [check(path) for path in sys.argv[1:]]
    sys.exit(0 if all(results) else 1)
