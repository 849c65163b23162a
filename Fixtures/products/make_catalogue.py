#!/usr/bin/env python3
"""Writes the saved-catalogue fixture of pipelines/products.yml (listing pages shaped like
real shop listings, linked product pages, placeholder pictures), or with
`--pages N --out DIR` a generated catalogue of N listing pages for `make bench`; with
`--real` too, pages shaped like a real saved e-commerce sandbox page (about 33 KB: head with
styles and scripts, navigation menus, a category sidebar, 20 product cards with srcset
pictures, rating stars as classes, forms, long class lists and inline styles, a footer)."""
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


CATEGORIES = ["Acacia", "Buckwheat", "Chestnut", "Clover", "Comb Honey", "Creamed Honey", "Eucalyptus", "Forest",
              "Heather", "Lavender", "Leatherwood", "Linden", "Manuka", "Orange Blossom", "Rosemary", "Sage",
              "Sunflower", "Thyme", "Tupelo", "Wildflower", "Beeswax", "Candles", "Cosmetics", "Pollen", "Propolis",
              "Royal Jelly", "Mead", "Gift Sets", "Equipment", "Books", "Seasonal", "Organic", "Raw", "Local",
              "Imported", "Limited Editions", "Bundles", "Subscriptions", "Sale", "New Arrivals", "Best Sellers",
              "Kitchen", "Baking", "Tea", "Breakfast", "Health", "Kids", "Pets", "Garden", "Workshops"]


def real_card(slug, title, price, stars, k):
    """A product card as real shop themes write it: responsive columns, a picture in
    several sizes, rating stars as classes with five icons, a price, stock and a form."""
    short = (title[:24] + "...") if len(title) > 27 else title
    pic = f"../media/cache/{k % 97:02x}/{k % 89:02x}/{slug}"
    return f"""          <li class="col-xs-6 col-sm-4 col-md-3 col-lg-3">
        <article class="product_pod">
          <div class="image_container">
            <a href="{slug}/index.html">
              <img src="{pic}-200.jpg" srcset="{pic}-200.jpg 200w, {pic}-400.jpg 400w" alt="{html.escape(title)}" class="thumbnail img-responsive lazyload">
            </a>
          </div>
          <p class="star-rating {stars}">
            <i class="icon-star"></i><i class="icon-star"></i><i class="icon-star"></i><i class="icon-star"></i><i class="icon-star"></i>
          </p>
          <h3><a href="{slug}/index.html" title="{html.escape(title)}">{html.escape(short)}</a></h3>
          <div class="product_price">
            <p class="price_color">{html.escape(price)}</p>
            <p class="instock availability">
              <i class="icon-ok"></i>
              In stock
            </p>
            <form><button type="submit" class="btn btn-primary btn-block" data-loading-text="Adding...">Add to basket</button></form>
          </div>
        </article>
      </li>
"""


def real_listing(n, total, items):
    menu = "".join(f"""              <li class="nav-item dropdown-item"><a class="nav-link" href="../category/{c.lower().replace(' ', '-')}_{i + 2}/index.html">{c}</a></li>
""" for i, c in enumerate(CATEGORIES[:12]))
    sidebar = "".join(f"""                <li>
                  <a href="../category/{c.lower().replace(' ', '-')}_{i + 2}/index.html">
                    {c}
                  </a>
                </li>
""" for i, c in enumerate(CATEGORIES))
    nav = f'<li class="previous"><a href="page-{n - 1}.html">previous</a></li>' if n > 1 else ""
    if n < total:
        nav += f'<li class="next"><a href="page-{n + 1}.html">next</a></li>'
    cards = "".join(real_card(*item) for item in items)
    return f"""<!DOCTYPE html>
<!--[if lt IE 7]>      <html lang="en-gb" class="no-js lt-ie9 lt-ie8 lt-ie7"> <![endif]-->
<!--[if IE 7]>         <html lang="en-gb" class="no-js lt-ie9 lt-ie8"> <![endif]-->
<!--[if gt IE 8]><!--> <html lang="en-gb" class="no-js"> <!--<![endif]-->
<head>
  <title>
    All products | Honey &amp; Hive Market Sandbox
  </title>
  <meta http-equiv="content-type" content="text/html; charset=UTF-8">
  <meta name="created" content="24th Jun 2016 09:29">
  <meta name="description" content="Page {n} of {total}: raw, creamed and comb honey, beeswax and hive products from small beekeepers.">
  <meta name="viewport" content="width=device-width">
  <meta name="robots" content="NOARCHIVE,NOCACHE">
  <meta property="og:title" content="All products | Honey &amp; Hive Market">
  <meta property="og:type" content="website">
  <meta property="og:image" content="https://honey-market.example.com/static/img/og-default.png">
  <link rel="shortcut icon" href="../static/oscar/favicon.ico">
  <link rel="stylesheet" type="text/css" href="../static/oscar/css/styles.css">
  <link rel="stylesheet" type="text/css" href="../static/oscar/js/bootstrap-datetimepicker/bootstrap-datetimepicker.css">
  <link rel="stylesheet" type="text/css" href="../static/oscar/css/datetimepicker.css">
  <style>
    .product_pod {{ min-height: 380px; }} .star-rating {{ color: #e6b800; }} .star-rating.One .icon-star:nth-child(n+2),
    .star-rating.Two .icon-star:nth-child(n+3), .star-rating.Three .icon-star:nth-child(n+4),
    .star-rating.Four .icon-star:nth-child(n+5) {{ color: #ddd; }} .side_categories__item {{ list-style: none; }}
  </style>
  <script type="text/javascript">
    window.dataLayer = window.dataLayer || [];
    function gtag() {{ dataLayer.push(arguments); }}
    gtag('js', new Date()); gtag('config', 'UA-00000000-1', {{ 'anonymize_ip': true, 'page_path': '/catalogue/page-{n}.html' }});
  </script>
</head>
<body id="default" class="default page-listing page-listing--catalogue js-page theme-honey">
  <header class="header container-fluid">
    <div class="page_inner">
      <div class="row">
        <div class="col-sm-8 h1"><a href="../index.html">Honey &amp; Hive Market</a><small> Warning! This is a demo website for web scraping purposes. Prices and ratings here were randomly assigned and have no real meaning.</small></div>
      </div>
    </div>
    <nav class="navbar navbar-default navbar-static-top primary-navigation" role="navigation" aria-label="Main">
      <div class="container-fluid">
        <ul class="nav navbar-nav">
{menu}        </ul>
        <form class="navbar-form navbar-right search-form" method="get" action="../search/" role="search">
          <input type="search" name="q" class="form-control search-input" placeholder="Search products" aria-label="Search">
          <button type="submit" class="btn btn-default">Search</button>
        </form>
      </div>
    </nav>
  </header>
  <div class="container-fluid page">
    <div class="page_inner">
      <ul class="breadcrumb">
        <li><a href="../index.html">Home</a></li>
        <li class="active">All products</li>
      </ul>
      <div class="row">
        <aside class="sidebar col-sm-4 col-md-3">
          <div id="promotions_left"></div>
          <div class="side_categories">
            <ul class="nav nav-list">
              <li>
                <a href="../category/all_1/index.html">All products</a>
                <ul>
{sidebar}                </ul>
              </li>
            </ul>
          </div>
        </aside>
        <div class="col-sm-8 col-md-9">
          <div class="page-header action"><h1>All products</h1></div>
          <div id="messages"></div>
          <div id="promotions"></div>
          <form method="get" class="form-horizontal">
            <div style="display:none"></div>
            <strong>{total * 20}</strong> results - showing <strong>{(n - 1) * 20 + 1}</strong> to <strong>{n * 20}</strong>.
          </form>
          <section>
            <div class="alert alert-warning" role="alert"><strong>Warning!</strong> This is a demo website for web scraping purposes.</div>
            <div>
              <ol class="row">
{cards}              </ol>
              <div>
                <ul class="pager">
                  <li class="current">Page {n} of {total}</li>
                  {nav}
                </ul>
              </div>
            </div>
          </section>
        </div>
      </div>
    </div>
  </div>
  <footer class="footer container-fluid">
    <div class="row">
      <div class="col-sm-4"><h4>About</h4><p>A sandbox catalogue for scraping practice. Nothing here is for sale.</p></div>
      <div class="col-sm-4"><h4>Help</h4><ul><li><a href="../help/shipping.html">Shipping</a></li><li><a href="../help/returns.html">Returns</a></li><li><a href="../help/contact.html">Contact</a></li></ul></div>
      <div class="col-sm-4"><h4>Follow</h4><ul class="social"><li><a href="#" class="social__link social__link--rss">RSS</a></li><li><a href="#" class="social__link social__link--mail">Newsletter</a></li></ul></div>
    </div>
  </footer>
  <script src="../static/oscar/js/jquery/jquery-1.9.1.min.js" type="text/javascript" charset="utf-8"></script>
  <script src="../static/oscar/js/bootstrap3/bootstrap.min.js" type="text/javascript" charset="utf-8"></script>
  <script src="../static/oscar/js/oscar/ui.js" type="text/javascript" charset="utf-8"></script>
  <script src="../static/oscar/js/bootstrap-datetimepicker/bootstrap-datetimepicker.js" type="text/javascript" charset="utf-8"></script>
  <script type="text/javascript">
    $(function() {{
      oscar.init();
      oscar.search.init();
      $('.js-add-to-basket').on('submit', function (event) {{ if (window.basketBusy) {{ event.preventDefault(); }} }});
      for (var i = 0; i < 20; i++) {{ if (i % 7 === 3) {{ console.debug('lazy', i); }} }}
    }});
  </script>
</body>
</html>
"""


def generated_real(root, pages):
    stars = ["One", "Two", "Three", "Four", "Five"]
    words = ["Raw", "Creamed", "Organic", "Wildflower", "Forest", "Set", "Jar", "Tin", "Gift Box", "Limited"]
    for n in range(1, pages + 1):
        items = []
        for i in range(20):
            k = (n - 1) * 20 + i
            title = f"{words[k % 10]} {CATEGORIES[k % len(CATEGORIES)]} Honey No. {k}, {k % 7 * 125 + 250} g {words[(k // 10) % 10]}"
            slug = f"{CATEGORIES[k % len(CATEGORIES)].lower().replace(' ', '-')}-honey-no-{k}_{k + 1000}"
            items.append((slug, title, f"£{(k % 5000) / 100 + 1:.2f}", stars[k % 5], k))
        write(f"{root}/page-{n}.html", real_listing(n, pages, items))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int)
    parser.add_argument("--out")
    parser.add_argument("--real", action="store_true", help="pages shaped like a real saved shop page (about 33 KB)")
    args = parser.parse_args()
    if args.pages and args.real:
        generated_real(args.out, args.pages)
    elif args.pages:
        generated(args.out, args.pages)
    else:
        fixture(os.path.dirname(os.path.abspath(__file__)))
