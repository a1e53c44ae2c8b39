// Placeholder until the legacy API example lands.
print("ReEngagement: not written yet")
