"""Airport Scramble (solo; Gymnasium id ``aerodeck/AirportScramble-v0``).

``rules`` (the rules object and its cards/tickets), ``layout`` (action indices AS-19, observation
layout), ``reference`` (one game in plain Python, the oracle), ``core`` (B games as numpy arrays),
``position`` (hand-built games for both engines), ``lines`` (AS-15 on batches), ``env`` (Gymnasium
env), ``vector`` (native VectorEnv), ``sb3`` (stable-baselines3 VecEnv), ``render`` (ansi / rgb).
Nothing is imported here, so ``import envs`` stays cheap.
"""
