// Placeholder until NotificationAttachments lands.
