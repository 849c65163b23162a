# The reference job in jq (1.6): trim and collapse names, drop blank names and
# out-of-range coordinates, keep the lowest id per (lower-cased name, country,
# coordinates rounded to 2 decimals), sort by name key, country, id.
# jq has no diacritic folding: its key is ASCII-lower-cased only.
def key: (.name | ascii_downcase);
def r2: (. * 100 | if . < 0 then -((-.) + 0.5 | floor) else (. + 0.5 | floor) end) / 100;
[ .[]
  | .name |= (gsub("^\\s+|\\s+$"; "") | gsub("\\s+"; " "))
  | select(.name != "" and .coord.lat >= -90 and .coord.lat <= 90 and .coord.lon >= -180 and .coord.lon <= 180)
  | ._id |= floor ]
| sort_by([key, .country, (.coord.lat | r2), (.coord.lon | r2), ._id])
| [ group_by([key, .country, (.coord.lat | r2), (.coord.lon | r2)])[] | .[0] ]
| sort_by([key, .country, ._id])
| map({id: ._id, name, country, latitude: .coord.lat, longitude: .coord.lon})
