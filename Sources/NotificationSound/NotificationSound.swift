// Placeholder until the sound module lands.
