"""What the station needs of the PC it runs on, for every part of it alike.

Its logs (structlog, :mod:`station.host.logging`), its disk (:mod:`station.host.disk`),
systemd's notifications and watchdog (:mod:`station.host.systemd_notify`), and the error of a
resource another program holds (:mod:`station.host.errors`, exit status 69). Nothing here
imports any other part of the station, so the service, its features and the pit all stand on it.
"""
