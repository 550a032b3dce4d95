"""A session's runtime: resource lanes, saved states, the roots seen, waits and root deltas."""
