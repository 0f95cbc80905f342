"""The target-neutral site plan: what Apache does in each URL space of a document root,
computed by the model, rendered by per-target emitters (nginx, Flask).  See
:mod:`confmig.model.plan.types` for what it holds and :mod:`confmig.model.plan.build` for how
it is asked of the model; :mod:`confmig.model.plan.json` is its JSON form."""

from confmig.model.plan.build import PlanError, plan_config, plan_docroot, plan_workspace
from confmig.model.plan.types import (
    ANSWER_FIELDS,
    Access,
    BasicLogin,
    EnvCondition,
    Expires,
    FilesScope,
    Header,
    LoginEntry,
    PlanNote,
    Redirect,
    RewritePlan,
    Scope,
    Settings,
    SitePlan,
    Source,
    SymLink,
)

__all__ = [
    "ANSWER_FIELDS", "Access", "BasicLogin", "EnvCondition", "Expires", "FilesScope", "Header",
    "LoginEntry",
    "PlanError", "PlanNote", "Redirect", "RewritePlan", "Scope", "Settings", "SitePlan", "Source",
    "SymLink",
    "plan_config", "plan_docroot", "plan_workspace",
]
