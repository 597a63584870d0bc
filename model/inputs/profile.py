"""Machine profiles: the data objects (:mod:`pinchpoint.inputs.profile_objects`: components,
links, flows, scenarios, each checking itself when built) and the document reader that builds
them (:mod:`pinchpoint.inputs.profile_reader`), offered under one name.

The objects and the reader live in modules of their own so that neither imports the other's
importer: the reader needs the objects, and this module needs both.
"""

from __future__ import annotations

from pinchpoint.inputs.profile_objects import (COMPONENT_PARAMS, INITIATORS, SCENARIO_FLOW_SEPARATOR, SCHEMA_VERSION,
                                               Cache, Component, Flow, FrozenMap, Link, Profile, Scenario, Value,
                                               check_values)
from pinchpoint.inputs.profile_reader import profile_from_document

__all__ = ["COMPONENT_PARAMS", "INITIATORS", "SCENARIO_FLOW_SEPARATOR", "SCHEMA_VERSION", "Cache", "Component",
           "FrozenMap", "Flow", "Link", "Profile", "Scenario", "Value", "check_values", "profile_from_document"]
