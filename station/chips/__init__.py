"""Chips recognised by their RFID tags: which chip is worth what, and what the chips on the
layout say about the bets and the payouts (docs/chips.md).

Pure logic, one job a module; nothing here reads a device, a clock or the journal:

- :mod:`station.chips.places`: where a chip can lie (a betting spot, a box's payout zone,
  the tray) and how a person names it;
- :mod:`station.chips.registry`: every chip's value and standing, the supervisor's changes
  to it as values, and its canonical form and hash;
- :mod:`station.chips.registry_file`: the chip maker's CSV file, read exactly (no floats);
- :mod:`station.chips.stable`: when a place's reads are trusted (the stable-read rule);
- :mod:`station.chips.recognise`: each spot's bet from its stable chips, and the chips that
  must not count, compared with the bets the dealer keyed;
- :mod:`station.chips.watch`: chips added to or taken from a spot after no more bets, and
  losing chips left after the settlement;
- :mod:`station.chips.payout_check`: what each box's payout zone holds against what it is owed.
"""
