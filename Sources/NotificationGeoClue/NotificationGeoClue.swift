// Placeholder until the GeoClue source lands.
