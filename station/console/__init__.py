"""The dealer's and supervisor's console: a touch web application for the table PC's screen.

It is served by a process of its own (:mod:`station.console.process`, aiohttp), like the web
scoreboard, and talks to the station over one socket pair (:mod:`station.console.feed`): the
station sends it the table as the console shows it (folded from the core loop's typed outputs,
:mod:`station.console.view`), and it sends back what a signed-in person asked, which the
station passes through the control socket's own validation and authorization
(:meth:`station.service.control.ControlServer.serve_line`). A page never holds a rule of its
own: every bet, action and decision is applied or refused by the table, with its reason.

docs/console.md describes it for people.
"""
