// Placeholder until NotificationPush lands.
