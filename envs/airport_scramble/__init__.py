"""Airport Scramble (solo; Gymnasium id ``aerodeck/AirportScramble-v0``).

``rules`` (the rules object and its cards/tickets), ``actions`` (action indices AS-19, why an action
is illegal), ``observation`` (the observation's blocks), ``state`` (the batched State), ``position``
(one game written out by hand, for both engines), ``reference`` (one game in plain Python, the
oracle), ``core`` (B games as numpy arrays), ``lines`` (AS-15 on batches), ``env`` (Gymnasium env),
``vector`` (native VectorEnv), ``view`` (the look-ahead view for search agents), ``sb3``
(stable-baselines3 VecEnv), ``render`` (ansi / rgb). Nothing is imported here, so ``import envs``
stays cheap.
"""
