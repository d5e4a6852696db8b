"""The aerodeck games. Importing ``envs`` registers the Gymnasium ids (``aerodeck/AirportScramble-v0``)."""
