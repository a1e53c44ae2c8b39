// Placeholder until the legacy API lands.
