// Placeholder until the localization module lands.
