"""Airport Scramble house rule: delivery in flight (AS-12 as the option ``pickup_in_flight=on`` reads it).

The passenger boards at the ticket's origin and is delivered at its destination whenever the plane flies
over them, not only where a flight ends. The built-in option does the same, so this house rule must play
exactly the same games as ``pickup_in_flight=on`` on the same seeds (``tests/airport_scramble/test_house_rules.py``)::

    aerodeck compare airport-scramble --house inflight:examples/house_rules/delivery_in_flight.py:DeliveryInFlight \\
        --variant option:pickup_in_flight=on --agent heuristic --games 200
"""

from aerodeck.envs.airport_scramble.reference import ReferenceGame


class DeliveryInFlight(ReferenceGame):
    """Every cell a flight passes over is a stop (AS-12); a delivery short of the flight's end is named
    in the game's log."""

    def flight_stops(self, path):
        return path  # the built-in rule: path[-1:] (the end of the flight only)

    def arrive(self, cell):
        reward = super().arrive(cell)
        if reward and cell != self.plane:  # the plane flew on past the destination
            self.note("delivered in flight (house rule DeliveryInFlight)")
        return reward
