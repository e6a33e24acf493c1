"""The significant-event log (docs/events.md): station starts and stops, devices lost and
back, lids and doors opened, deck checks failed, the journal unwritable, the disk low,
integrity alarms, access denied, corrections, dealer changes; each with its time, device and a
stable code. A reading of the journal (:mod:`station.significant.derive`), published on the
floor feed, counted in Prometheus and listed by ``station events``: no second store.
"""
