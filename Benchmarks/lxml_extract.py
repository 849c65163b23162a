#!/usr/bin/env python3
"""The HTML benchmark in Python lxml (which parses with libxml2 too): the same XPath as
Benchmarks/pipelines/html.yml, the same fields and conversions, written as NDJSON in the
same form as seedforge's, so the two outputs can be compared byte for byte."""
import decimal
import json
import re
import sys
import urllib.parse

from lxml import html

SYMBOLS = {"£": "GBP", "€": "EUR", "$": "USD"}
STARS = {"One": 1, "Two": 2, "Three": 3, "Four": 4, "Five": 5}
BASE = "https://honey-market.example.com/catalogue/"


def natural(path):
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", path)]


def price(text):
    text = text.strip()
    currency = next((code for symbol, code in SYMBOLS.items() if symbol in text), None)
    digits = re.sub(r"[^\d.,-]", "", text).replace(",", "")
    amount = format(decimal.Decimal(digits).normalize(), "f")
    return amount, currency


def main(folder, out):
    import glob
    import os
    pages = sorted(glob.glob(os.path.join(folder, "page-*.html")), key=natural)
    with open(out, "w", encoding="utf-8") as f:
        for page in pages:
            tree = html.parse(page)
            page_url = urllib.parse.urljoin(BASE, os.path.basename(page))
            for item in tree.xpath("//article[@class='product_pod']"):
                link = item.xpath(".//h3/a")[0]
                amount, currency = price(item.xpath(".//p[@class='price_color']")[0].text_content())
                classes = item.xpath(".//p[starts-with(@class, 'star-rating')]")[0].get("class").split()
                rating = next(STARS[word] for word in classes if word in STARS)
                f.write("{" + ",".join([
                    '"name":' + json.dumps(" ".join(link.get("title").split()), ensure_ascii=False),
                    '"url":' + json.dumps(urllib.parse.urljoin(page_url, link.get("href")), ensure_ascii=False),
                    '"price":' + amount,
                    '"currency":' + json.dumps(currency),
                    '"rating":' + str(rating),
                ]) + "}\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
