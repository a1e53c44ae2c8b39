// Placeholder until the APNs endpoint lands.
