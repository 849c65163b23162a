"""Writes the places fixtures: the adventure log's export (places.json) and three saved
responses of a places API's nearby search around Bondi (nearby/), chained by
next_page_token. Real tokens run to hundreds of characters, too long for file names, so
each followed page is saved as SHA-256(token).json (pipelines/places.yml:
next-page-file: "{token-sha256}.json"). Ids are UUID-5s so reruns give the same files.
Run from this folder: python3 make_fixtures.py
"""
import hashlib
import json
import os
import uuid

NS = uuid.UUID("6f1c2a9e-3b7d-4c55-9a0e-2d8f4b1c7e31")


def uid(name):
    return str(uuid.uuid5(NS, name)).upper()


TRIPS = {key: uid("trip-" + key) for key in ["syd", "hajj", "alps", "paris", "lisbon", "iceland", "bondi"]}


def place(key, name, category, lat, lon, address, description, visited, visited_date, rating, reflection, trip, place_id=None, **extra):
    record = {
        "id": uid("place-" + key), "name": name, "category": category, "latitude": lat, "longitude": lon,
        "address": address, "placeDescription": description, "isVisited": visited, "visitedDate": visited_date,
        "rating": rating, "personalReflection": reflection, "placeId": place_id,
        "tripId": TRIPS[trip] if trip else None, "createdAt": "2024-05-01T09:00:00Z",
    }
    record.update(extra)
    return record


PLACES = [
    place("bondi", "Bondi Beach", "Beach", -33.89148, 151.27670, "Queen Elizabeth Dr, Bondi Beach NSW 2026", "Sydney\u2019s best-known surf beach", True, "2024-12-28", 5, "First swim of the trip, huge waves.", "syd"),
    place("coogee", "Bondi to Coogee Coastal Walk", "hiking", -33.8990, 151.2731, "Bondi Beach NSW 2026", "Six kilometres of cliff-top path between beaches", True, "2024-12-29", 4, "Hot, but the views at Tamarama were worth it.", "syd"),
    place("opera", "Sydney Opera House", "activity", -33.85681, 151.21514, "Bennelong Point, Sydney NSW 2000", "Concert hall on the harbour", True, "2024-12-31", 5, "New Year\u2019s Eve fireworks from the steps.", "syd", "ChIJ3S-JXmauEmsRUcIaWtf4MzE"),
    place("manly", "Manly Beach", "beach ", -33.7969, 151.2877, "North Steyne, Manly NSW 2095", "Ferry ride from Circular Quay", False, None, None, None, "syd"),
    place("icebergs", "Icebergs Dining Room", "Restaurants", -33.89470, 151.27452, "1 Notts Ave, Bondi Beach NSW 2026", "Seafood above the ocean pool", True, "2024-12-30", 4, "Pricey; book a window table.", "syd", "ChIJ5Y1pZheuEmsRJ7LdQ8lw0tA"),
    place("haram", "Masjid al-Haram", "Place of Worship", 21.4225, 39.8262, "Makkah 24231, Saudi Arabia", "The Great Mosque of Mecca", True, "2024-06-14", 5, "Tawaf at dawn.", "hajj"),
    place("mina", "Mina", "Other", 21.4133, 39.8933, "Mina, Makkah, Saudi Arabia", "The tent city", True, "2024-06-15", 4, None, "hajj"),
    place("arafat", "Jabal al-Rahmah", "place of worship", 21.3549, 39.9841, "Arafat, Makkah, Saudi Arabia", "The Mount of Mercy at Arafat", True, "2024-06-16", 5, "The Day of Arafah.", "hajj"),
    place("lindt", "Lindt Home of Chocolate", "Activity", 47.3106, 8.5539, "Schokoladenplatz 1, 8802 Kilchberg", "Chocolate museum by the lake", True, "2025-07-02", 4, "The fountain!", "alps"),
    place("uetli", "Uetliberg", "Hike", 47.3497, 8.4917, "Uetliberg, 8143 Stallikon", "Zurich\u2019s own mountain", True, "2025-07-03", 6, "Rated on the old ten-point scale by mistake.", "alps"),
    place("utoquai", "Seebad Utoquai", "Beach", 47.3601, 8.5484, "Utoquai 49, 8008 Z\u00fcrich", "Lake bath from 1890", False, None, 4, None, "alps"),
    place("sacre", "Sacr\u00e9-C\u0153ur", "Place of Worship", 48.88671, 2.34310, "35 Rue du Chevalier de la Barre, 75018 Paris", "Basilica on Montmartre", True, "2023-05-02", 5, "Sunset over Paris.", "paris"),
    place("comptoir", "Le Comptoir du Panth\u00e9on", "Restaurant", 48.8466, 2.3455, "5 Rue Soufflot, 75005 Paris", "Brasserie facing the Panth\u00e9on", True, "2023-05-01", 3, "Slow service.", "paris"),
    place("gorkha", "Gorkha Durbar", "Place of Worship", 28.0087, 84.6282, "Gorkha 34000, Nepal", "Hilltop palace and temple", True, "2025-10-08", 5, "Steep climb, great view of Manaslu.", None),
    place("abc", "Annapurna Base Camp", "Hike", 28.5308, 83.8781, "Annapurna Sanctuary, Nepal", "Trek into the Annapurna Sanctuary", False, None, None, None, None),
    place("opera", "Sydney Opera House", "Activity", -33.85681, 151.21514, "Bennelong Point, Sydney NSW 2000", "Concert hall on the harbour", True, "2024-12-31", 5, "Fireworks (copy from a sync conflict).", "syd", "ChIJ3S-JXmauEmsRUcIaWtf4MzE"),
    place("cove", "Secret cove", "Beach", None, None, None, "A friend\u2019s tip, location not saved", False, None, None, None, None),
    place("berghain", "Berghain", "Nightlife", 52.5111, 13.4430, "Am Wriezener Bahnhof, 10243 Berlin", "Club in a former power station", False, None, None, None, None),
    place("tor", "Brandenburger Tor", "Other", 52.5163, 13.3777, "Pariser Platz, 10117 Berlin", "Gate on Pariser Platz", False, "2025-07-10", None, None, None),
    place("belem", "Torre de Bel\u00e9m", "Other", 38.6916, -9.2160, "Av. Bras\u00edlia, 1400-038 Lisboa", "Tower on the Tagus", False, None, None, None, "lisbon"),
    place("tsukiji", "Tsukiji Outer Market", "Restaurant", 35.6654, 139.7707, "4 Chome-16-2 Tsukiji, Tokyo", "Breakfast sushi stalls", True, "2023-11-03", 4, "Tamagoyaki on a stick.", None, favourite=True),
    # Added for the second review: the same beach saved again on a later trip, an emoji
    # category 90 m from the API's listing, a same-named beach 150 m from the API's, a
    # place north of Zurich (where the dump lists Zurich twice), places just inside and
    # just beyond 50 km of a city, a visit date in the wrong format.
    place("bondi-2026", "Bondi Beach", "Beach", -33.89152, 151.27661, "Queen Elizabeth Dr, Bondi Beach NSW 2026", "Back for the reunion", True, "2026-01-11", 3, "Crowded, still lovely.", "bondi"),
    place("bronte", "Bronte Beach", "\U0001F3D6\ufe0f", -33.9044, 151.2683, "Bronte Rd, Bronte NSW 2024", "Family beach with a rock pool", False, None, None, None, "bondi"),
    place("tamarama", "Tamarama Beach", "Beach", -33.9000, 151.2723, "Pacific Ave, Tamarama NSW 2026", "Small beach between the headlands", True, "2026-01-12", 4, None, "bondi"),
    place("zurichberg", "Z\u00fcrichberg", "Hike", 47.3849, 8.5746, "Z\u00fcrichbergstrasse, 8044 Z\u00fcrich", "Forest walk above the city", False, None, None, None, "alps"),
    place("scarborough", "Scarborough Pool", "Beach", -34.2690, 150.9660, "Lawrence Hargrave Dr, Scarborough NSW 2515", "Ocean pool below the escarpment", False, None, None, None, None),
    place("milly", "Chapelle Saint-Blaise-des-Simples", "Place of Worship", 48.4040, 2.4700, "Rue Jean Cocteau, 91490 Milly-la-For\u00eat", "Chapel decorated by Jean Cocteau", False, None, None, None, None),
    place("hira", "Jabal al-Nour", "Hike", 21.4576, 39.8593, "Makkah, Saudi Arabia", "The climb to the cave of Hira", True, "15/06/2024", 5, "Night climb.", "hajj"),
]

TRIP_LIST = [
    {"id": TRIPS["syd"], "name": "Summer in Sydney", "tripDescription": "Christmas and New Year by the harbour", "startDate": "2024-12-26", "endDate": "2025-01-03"},
    {"id": TRIPS["hajj"], "name": "Hajj 2024", "tripDescription": "Pilgrimage with the family", "startDate": "2024-06-10", "endDate": "2024-06-20"},
    {"id": TRIPS["alps"], "name": "Alps 2025", "tripDescription": "Zurich and the lakes", "startDate": "2025-07-01", "endDate": "2025-07-10"},
    {"id": TRIPS["paris"], "name": "Paris weekend", "tripDescription": None, "startDate": "2023-05-01", "endDate": "2023-05-03"},
    {"id": TRIPS["lisbon"], "name": "Lisbon someday", "tripDescription": "Dates typed the wrong way round", "startDate": "2026-05-10", "endDate": "2026-05-03"},
    {"id": TRIPS["iceland"], "name": "Iceland ring road", "tripDescription": "Planned, nothing saved yet", "startDate": "2026-08-01", "endDate": "2026-08-14"},
    {"id": TRIPS["bondi"], "name": "Bondi reunion", "tripDescription": "A long weekend with old friends", "startDate": "2026-01-10", "endDate": "2026-01-12"},
]


def token(n):
    """A token shaped like the API's: long, base64url-ish, deterministic."""
    seed = hashlib.sha256(f"page-token-{n}".encode()).digest() * 12
    import base64
    return "Aap_uE" + base64.urlsafe_b64encode(seed).decode().rstrip("=")[:370]


def result(place_id, name, lat, lng, types, vicinity, rating=None, total=None, geometry=True, price=None, open_now=None, photo=True):
    r = {"business_status": "OPERATIONAL"}
    if geometry:
        r["geometry"] = {
            "location": {"lat": lat, "lng": lng},
            "viewport": {"northeast": {"lat": round(lat + 0.0013, 7), "lng": round(lng + 0.0013, 7)},
                         "southwest": {"lat": round(lat - 0.0013, 7), "lng": round(lng - 0.0013, 7)}},
        }
    r["icon"] = "https://maps.gstatic.com/mapfiles/place_api/icons/v1/png_71/generic_business-71.png"
    r["icon_background_color"] = "#7B9EB0"
    r["icon_mask_base_uri"] = "https://maps.gstatic.com/mapfiles/place_api/icons/v2/generic_pinlet"
    r["name"] = name
    if open_now is not None:
        r["opening_hours"] = {"open_now": open_now}
    if photo:
        r["photos"] = [{"height": 3024, "html_attributions": ["<a href=\"https://maps.google.com/maps/contrib/1\">A Google User</a>"],
                        "photo_reference": "AUc7tXW" + hashlib.sha1(place_id.encode()).hexdigest() * 3, "width": 4032}]
    r["place_id"] = place_id
    r["plus_code"] = {"compound_code": "4PR8+XG Bondi Beach NSW, Australia", "global_code": "4RRH4PR8+XG"}
    if price is not None:
        r["price_level"] = price
    if rating is not None:
        r["rating"] = rating
    r["reference"] = place_id
    r["scope"] = "GOOGLE"
    r["types"] = types
    if total is not None:
        r["user_ratings_total"] = total
    r["vicinity"] = vicinity
    return r


PAGE1 = [
    result("ChIJ0XCaYhKyEmsR_3P9bSNtmxw", "Bondi Beach", -33.8914755, 151.2766845, ["beach", "natural_feature", "point_of_interest"], "Bondi Beach", 4.6, 18234),
    result("ChIJV5oWNuWtEmsRqCkfOBeQs7Y", "Bondi Icebergs Pool", -33.8951226, 151.2741407, ["swimming_pool", "point_of_interest", "establishment"], "1 Notts Ave, Bondi Beach", 4.7, 3120, open_now=True),
    result("ChIJK0XcF0WtEmsRsNlQk2sRb4E", "Bills Bondi", -33.8902553, 151.2758611, ["restaurant", "food", "point_of_interest", "establishment"], "79 Hall St, Bondi Beach", 4, 1873, price=2, open_now=False),
    result("ChIJ3S-JXmauEmsRUcIaWtf4MzE", "Sydney Opera House", -33.8567844, 151.2152967, ["tourist_attraction", "point_of_interest", "establishment"], "Bennelong Point, Sydney", 4.7, 91234),
    result("ChIJr8q6XE2tEmsRQb0QnhSjv3c", "Bronte Beach", -33.9036, 151.2686, ["beach", "natural_feature"], "Bronte Beach", photo=False),
]
PAGE2 = [
    result("ChIJM2TtY_2tEmsRk0Ev2p6Wd7s", "Tamarama Beach", -33.8987, 151.2717, ["beach"], "Tamarama Marine Dr, Tamarama", 4.7, 2410),
    result("ChIJ3S-JXmauEmsRUcIaWtf4MzE", "Sydney Opera House", -33.8567844, 151.2152967, ["tourist_attraction", "point_of_interest", "establishment"], "Bennelong Point, Sydney", 4.7, 91234),
    result("ChIJj2ThcDSuEmsRhXnGe4Pf0tY", "St Mary's Cathedral", -33.8712, 151.2133, ["church", "place_of_worship", "point_of_interest", "establishment"], "St Marys Rd, Sydney", 4.8, 5120),
    result("ChIJ4fQbw_CtEmsRC2n8n5kz4yU", "Waverley Cemetery", 0, 0, ["cemetery", "point_of_interest"], "St Thomas St, Bronte", 4.7, 402, geometry=False),
    result("ChIJa9ZxY3CrEmsRc4dH1ikRz6k", "Sydney Harbour National Park", -33.8389, 151.2785, ["park", "point_of_interest"], "Sydney Harbour National Park", 4.8, 1204),
]
PAGE3 = [
    result("ChIJ5Y1pZheuEmsRJ7LdQ8lw0tA", "Icebergs Dining Room and Bar", -33.89462, 151.27448, ["restaurant", "bar", "food", "point_of_interest"], "1 Notts Ave, Bondi Beach", 4.4, 2987, price=4),
    result("ChIJw6kYzRWtEmsR8Qm3sVt1g0I", "Bondi Farmers Market", -33.8897, 151.2720, ["point_of_interest", "establishment"], "Bondi Beach Public School, Warners Ave", 4.5, 610),
    result("ChIJ8c5GzmmuEmsRyu2p3vQ4rE0", "Harry's Cafe de Wheels", -33.8698, 151.2255, ["cafe", "food", "point_of_interest"], "Cowper Wharf Roadway, Woolloomooloo", 4.3, 3400, price=1),
]


def write(path, document):
    with open(path, "w", encoding="utf-8") as out:
        out.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")


def main():
    write("places.json", {"app": "AdventureLogger", "exportVersion": 2, "exportedAt": "2026-11-02T18:30:00Z", "places": PLACES, "trips": TRIP_LIST})
    os.makedirs("nearby", exist_ok=True)
    for name in os.listdir("nearby"):
        os.remove(os.path.join("nearby", name))
    t2, t3 = token(2), token(3)
    pages = [("search.json", PAGE1, t2), (hashlib.sha256(t2.encode()).hexdigest() + ".json", PAGE2, t3), (hashlib.sha256(t3.encode()).hexdigest() + ".json", PAGE3, None)]
    for name, results, next_token in pages:
        document = {"html_attributions": []}
        if next_token:
            document["next_page_token"] = next_token
        document["results"] = results
        document["status"] = "OK"
        write(os.path.join("nearby", name), document)


if __name__ == "__main__":
    main()
