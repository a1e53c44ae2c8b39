// Placeholder until NotificationLocation lands.
