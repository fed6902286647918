"""Schemathesis hooks of scripts/fuzz-api.sh (loaded through SCHEMATHESIS_HOOKS).

Two rules of an ops batch cannot be written in JSON Schema, so a generator that follows
Config/vault-server.openapi.yaml alone breaks them nearly always and the server rejects the op:
  - an upsert's `method.id` must equal its `instrumentId` (two independent strings never match);
  - an `opId` names one op for good (per customer): the generator repeats small ids ("0") across
    different ops, and each repeat fails its whole batch with 422 idempotency-key-reused (or,
    inside one batch, 400 duplicate-op-id).
Before each request whose body was generated to be valid, this hook applies both rules: it copies
`instrumentId` into an upsert's `method.id`, and gives a fresh opId to an op whose id this run
already sent with another op (or earlier in the same batch). A byte-identical re-send keeps its id
and gets the recorded result, as the contract says. Bodies generated to be invalid are left
alone: they still meet 422, duplicate ids and mismatched ids. Nothing else is touched, so every
other rule (expiry, lengths, versions, unknown ids) is still the document's doing.
"""
import itertools
import json
import threading

import schemathesis

_lock = threading.Lock()
_sent: dict[tuple[str, str], str] = {}  # (customer, opId) -> the op as sent
_fresh = itertools.count(1)


def _valid_body(case) -> bool:
    meta = case.meta
    if meta is None:
        return True  # an example from the document, valid by construction
    for location, info in meta.components.items():
        if getattr(location, "value", location) == "body":
            return getattr(info.mode, "value", info.mode) == "positive"
    return True


@schemathesis.hook
def before_call(context, case, kwargs):
    operation = context.operation
    if operation is None or operation.method.upper() != "POST" or not operation.path.endswith("/ops"):
        return
    body = case.body
    if not isinstance(body, dict) or not isinstance(body.get("ops"), list) or not _valid_body(case):
        return
    customer = str((case.path_parameters or {}).get("customer"))
    with _lock:
        in_batch: set[str] = set()
        for op in body["ops"]:
            if not isinstance(op, dict):
                continue
            method = op.get("method")
            if op.get("kind") == "upsert" and isinstance(method, dict) and isinstance(op.get("instrumentId"), str):
                method["id"] = op["instrumentId"]
            op_id = op.get("opId")
            if not isinstance(op_id, str):
                continue
            text = json.dumps(op, sort_keys=True)
            previous = _sent.get((customer, op_id))
            if op_id in in_batch or (previous is not None and previous != text):
                suffix = f".f{next(_fresh)}"
                op_id = op_id[: 128 - len(suffix)] + suffix  # still an Identifier
                op["opId"] = op_id
                text = json.dumps(op, sort_keys=True)
            in_batch.add(op_id)
            _sent[(customer, op_id)] = text
