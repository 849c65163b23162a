#!/usr/bin/env python3
"""Writes the saved-catalogue fixture of pipelines/products.yml (listing pages shaped like
real shop listings, linked product pages, placeholder pictures), or with
`--pages N --out DIR` a generated catalogue of N listing pages for `make bench`."""
import argparse
import html
import os

FIXTURE = [
    [("wildflower-honey-500g", "Wildflower Honey, Raw and Unfiltered, 500 g Jar", "£51.77", "Three"),
     ("manuka-honey-umf-10", "Mānuka Honey UMF 10+ from Northland, 250 g", "$1,299.00", "Five"),
     ("lavender-honey-provence", "Miel de Lavande de Provence IGP, 400 g", "1.234,56 €", "Four"),
     ("beeswax-candles-set", "Hand-Dipped Beeswax Candles, Set of Six", "EUR 12", "Two")],
    # broken markup on this page, an unknown rating word, a price that is not one, a duplicate
    [("acacia-honey-1kg", "Acacia Honey, Light and Mild, 1 kg", "£18.40", "Four"),
     ("honeycomb-frame", "Cut Comb Honey in the Frame", "Sold out", "Three"),
     ("royal-jelly-capsules", "Royal Jelly Capsules, 60 × 500 mg", "¥1,200", "Zero"),
     ("wildflower-honey-500g", "Wildflower Honey, Raw and Unfiltered, 500 g Jar", "£51.77", "Three")],
    # a card without a title; the last page
    [("bee-pollen-granules", "Bee Pollen Granules, 200 g", "£9.95", "One"),
     ("mystery-jar", None, "£4.00", "Two"),
     ("chestnut-honey", "Castanea: Dark Chestnut Honey, 350 g", "£12.30", "Five")],
]


def card(slug, title, price, stars, broken):
    short = (title[:24] + "...") if title and len(title) > 27 else (title or "")
    title_attr = f' title="{html.escape(title)}"' if title else ""
    return f"""    <li class="col-xs-6">
      <article class="product_pod">
        <div class="image_container">
          <a href="products/{slug}.html"><img src="../media/{slug}.jpg" alt="{html.escape(title or slug)}" class="thumbnail"></a>
        </div>
        <p class="star-rating {stars}">
          <i class="icon-star"></i><i class="icon-star"></i><i class="icon-star"></i>
        {'' if broken else '</p>'}
        <h3><a href="products/{slug}.html"{title_attr}>{html.escape(short)}</a></h3>
        <div class="product_price">
          <p class="price_color">{html.escape(price)}</p>
          <p class="instock availability"><i class="icon-ok"></i>
            In stock
          </p>
        </div>
      {'<b><i>' if broken else ''}</article>{'</b></i>' if broken else ''}
    </li>
"""


def listing(n, total, items, broken):
    nav = f'<li class="previous"><a href="page-{n - 1}.html">previous</a></li>' if n > 1 else ""
    if n < total:
        nav += f'<li class="next"><a href="page-{n + 1}.html">next</a></li>'
    cards = "".join(card(*item, broken) for item in items)
    return f"""<!DOCTYPE html>
<html lang="en-gb">
<head>
  <meta charset="utf-8">
  <title>Honey &amp; Hive Market | All products | Page {n} of {total}</title>
</head>
<body id="default" class="default">
  <header><a href="page-1.html">Honey &amp; Hive Market</a></header>
  <div class="page_inner">
    <ol class="row">
{cards}    </ol>
    <ul class="pager">
      <li class="current">Page {n} of {total}</li>
      {nav}
    </ul>
  </div>
</body>
</html>
"""


def product_page(slug, title, price, stars):
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{html.escape(title or slug)} | Honey &amp; Hive Market</title></head>
<body><article class="product_page">
  <h1>{html.escape(title or slug)}</h1>
  <p class="price_color">{html.escape(price)}</p>
  <p class="star-rating {stars}"></p>
  <div id="product_description"><p>From our partner beekeepers. Store below 25 °C.</p></div>
  <a href="../page-1.html">Back to the catalogue</a>
</article></body></html>
"""


def write(path, text, binary=False):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"})) as f:
        f.write(text)


def fixture(root):
    for n, items in enumerate(FIXTURE, 1):
        write(f"{root}/catalogue/page-{n}.html", listing(n, len(FIXTURE), items, broken=(n == 2)))
    seen = set()
    for items in FIXTURE:
        for slug, title, price, stars in items:
            if slug not in seen:
                seen.add(slug)
                write(f"{root}/catalogue/products/{slug}.html", product_page(slug, title, price, stars))
                write(f"{root}/media/{slug}.jpg", bytes([0xFF, 0xD8, 0xFF, 0xE0]) + b"placeholder " + slug.encode(), binary=True)


def generated(root, pages):
    stars = ["One", "Two", "Three", "Four", "Five"]
    for n in range(1, pages + 1):
        items = []
        for i in range(20):
            k = (n - 1) * 20 + i
            items.append((f"product-{k}", f"Generated Honey Product Number {k}, Batch {k % 97}", f"£{(k % 5000) / 100 + 1:.2f}", stars[k % 5]))
        write(f"{root}/page-{n}.html", listing(n, pages, items, broken=(n % 10 == 0)))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int)
    parser.add_argument("--out")
    args = parser.parse_args()
    if args.pages:
        generated(args.out, args.pages)
    else:
        fixture(os.path.dirname(os.path.abspath(__file__)))
