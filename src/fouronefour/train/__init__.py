"""Training the ``learned`` bot: ``fouronefour train`` (needs the ``train`` extra: torch,
ray, matplotlib). Deep Monte-Carlo with rollout actors on Ray; see docs/bots.md.

The modules the actors and the bot share are numpy only (:mod:`.selfplay`,
:mod:`.evaluate`); :mod:`.trainer` and :mod:`.model` import torch and ray.
"""
