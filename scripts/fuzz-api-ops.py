"""The write path of scripts/fuzz-api.sh: what the generated ops really did, and a scripted scenario.

  share MIN DB NDJSON...    Reads schemathesis' NDJSON reports (every POST .../ops generated
                            schema-valid: what was sent and answered) and the server's SQLite
                            file DB after it stopped (its op records and instruments: what really
                            ran). Prints ops sent, refused batches and results by status and
                            reason, and fails (exit 1) when fewer than MIN percent of the distinct
                            ops answered have an applied op record; when an op answered `applied`
                            has none; when a schema-valid op was rejected for a rule the schema
                            states (STATED_IN_SCHEMA); when a customer holds two defaults; or when
                            the fuzz left no instrument created, defaulted, edited or deleted.
  scenario URL CA KEY CUSTOMER
                            Over HTTPS with KEY: creates two instruments, makes one the default,
                            moves the default with an upsert, meets a stale version, deletes one
                            by op and one by DELETE, and checks every step through the GET
                            endpoints (instruments and the change feed). Exit 1 on the first
                            step that differs.
Standard library only for `share`; `scenario` needs `requests` (schemathesis' venv has it).
"""
import base64
import collections
import json
import sqlite3
import sys
import urllib.parse
import uuid

MERCHANT = "merchant_fuzz"  # the tenant fuzz-api.sh gives its API key
# Rejections that a schema-valid op must never get: the Op schemas state these rules exactly (the
# shape, the required method of an upsert, lengths, expiry ranges; the id equality is applied by
# fuzz-api-hooks.py). Digit runs and card numbers (any script, separators, Luhn) and the rules
# that depend on stored state cannot be stated, so they only lower the applied share.
STATED_IN_SCHEMA = {"invalid-op", "invalid-expiry", "field-too-long"}


def _json(blob):
    if blob is None:
        return None
    try:
        raw = base64.b64decode(blob["$base64"]) if "$base64" in blob else blob.get("string", "").encode()
        return json.loads(raw)
    except (ValueError, KeyError, TypeError):
        return None


def _schema_valid(case):
    """True when schemathesis generated every part of the request (path, headers, body) valid."""
    meta = (case or {}).get("meta") or {}
    return all((info or {}).get("mode") == "positive" for info in (meta.get("components") or {}).values())


def share(minimum, db, reports):
    sent = 0
    batches = collections.Counter()
    results = collections.Counter()
    answered = {}  # (customer, opId) -> the status of its first answer
    answered_applied = set()
    for report in reports:
        with open(report, encoding="utf-8") as lines:
            for line in lines:
                event = json.loads(line)
                finished = event.get("ScenarioFinished")
                if not finished:
                    continue
                recorder = finished.get("recorder") or {}
                cases = recorder.get("cases") or {}
                for case_id, interaction in (recorder.get("interactions") or {}).items():
                    request, response = interaction.get("request") or {}, interaction.get("response")
                    path = urllib.parse.urlsplit(request.get("uri", "")).path.split("/")
                    if request.get("method") != "POST" or len(path) != 5 or path[4] != "ops" or not response:
                        continue
                    if not _schema_valid((cases.get(case_id) or {}).get("value")):
                        continue
                    body = _json(request.get("body"))
                    if not isinstance(body, dict) or not isinstance(body.get("ops"), list):
                        continue
                    customer = urllib.parse.unquote(path[3])
                    sent += len(body["ops"])
                    status = response.get("status_code")
                    batches[status] += 1
                    if status != 200:
                        continue
                    answer = _json(response.get("content")) or {}
                    for op, result in zip(body["ops"], answer.get("results") or []):
                        results[(result.get("status"), result.get("reason") or "-")] += 1
                        key = (customer, op.get("opId") if isinstance(op, dict) else None)
                        answered.setdefault(key, result.get("status"))
                        if result.get("status") == "applied":
                            answered_applied.add(key)
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    records = {
        (customer, op_id): json.loads(result).get("status")
        for customer, op_id, result in connection.execute(
            "SELECT customer, op_id, result_json FROM op_log WHERE merchant = ?", (MERCHANT,))
    }
    # The fuzz's own instruments: the scenario's (ids `scenario-...`) are left out.
    live, deleted, defaults, edited = (count or 0 for count in connection.execute(
        "SELECT sum(deleted = 0), sum(deleted = 1), sum(is_default = 1 AND deleted = 0), sum(version > 1) "
        "FROM instrument WHERE merchant = ? AND id NOT LIKE 'scenario-%'", (MERCHANT,)).fetchone())
    doubled = connection.execute(
        "SELECT count(*) FROM (SELECT customer FROM instrument WHERE merchant = ? AND is_default = 1 AND deleted = 0 "
        "GROUP BY customer HAVING count(*) > 1)", (MERCHANT,)).fetchone()[0]
    applied = sum(1 for key in answered if records.get(key) == "applied")
    unrecorded = sorted(key for key in answered_applied if records.get(key) != "applied")
    print(f"ops in schema-valid bodies: {sent} sent in {sum(batches.values())} batches "
          f"(by answer: {', '.join(f'{status}: {count}' for status, count in sorted(batches.items()))})")
    print(f"op results in the 200s: {sum(results.values())}")
    for (status, reason), count in sorted(results.items(), key=lambda item: -item[1]):
        print(f"  {count:6}  {status} {reason}")
    print(f"instruments the fuzz left: {live} live ({defaults} default), {deleted} deleted, {edited} past version 1")
    failed = False
    if unrecorded:
        print(f"FAIL: {len(unrecorded)} ops answered applied have no applied op record, e.g. {unrecorded[:3]}")
        failed = True
    stated = {reason: count for (status, reason), count in results.items()
              if status == "rejected" and reason in STATED_IN_SCHEMA}
    if stated:
        print(f"FAIL: schema-valid ops rejected for rules the schema states ({stated}): the document and the server differ")
        failed = True
    if doubled:
        print(f"FAIL: {doubled} customers hold more than one default")
        failed = True
    if not (live and defaults and deleted and edited):
        print("FAIL: the fuzz should leave instruments created, defaulted, edited and deleted")
        failed = True
    rate = 100.0 * applied / len(answered) if answered else 0.0
    print(f"applied share: {applied} of {len(answered)} distinct ops answered ({rate:.1f}%), "
          f"by the server's op records; required: {minimum}%")
    if rate < minimum:
        print("FAIL: the fuzz hardly writes; the document no longer states what the server enforces on an op")
        failed = True
    return 1 if failed else 0


def scenario(url, ca, key, customer):
    import requests

    session = requests.Session()
    session.trust_env = False  # else REQUESTS_CA_BUNDLE (and a proxy) from the environment win over `verify`
    session.verify = ca
    session.headers["Authorization"] = f"Bearer {key}"
    base = f"{url}/v1/customers/{customer}"
    run = uuid.uuid4().hex[:12]
    first, second = f"scenario-{run}-a", f"scenario-{run}-b"

    def method(instrument, last4, default=False):
        return {"id": instrument, "paymentMethodType": "PAYMENT_CARD", "paymentInstrumentType": "PAYMENT_CARD",
                "analyticsId": f"analytics-{instrument}", "isDefault": default,
                "paymentInstrumentData": {"network": "VISA", "first6Digits": "424242", "last4Digits": last4,
                                          "expirationMonth": 12, "expirationYear": 2031,
                                          "cardholderName": "Scenario Shopper",
                                          "binData": {"networks": ["VISA"]}}}

    def ops(*batch):
        answer = session.post(f"{base}/ops", json={"ops": list(batch)}, timeout=30)
        expect(answer.status_code == 200, f"ops answered {answer.status_code}: {answer.text[:300]}")
        return answer.json()["results"]

    def listed():
        answer = session.get(f"{base}/instruments", timeout=30)
        expect(answer.status_code == 200, f"instruments answered {answer.status_code}")
        return {item["id"]: item for item in answer.json()["instruments"] if item["id"] in (first, second)}

    def expect(condition, what):
        if not condition:
            raise SystemExit(f"FAIL scenario ({customer}): {what}")

    create = [{"opId": f"{first}-1", "kind": "upsert", "instrumentId": first, "baseVersion": None,
               "method": method(first, "1111")},
              {"opId": f"{second}-1", "kind": "upsert", "instrumentId": second, "method": method(second, "2222")}]
    results = ops(*create)
    expect([(r["status"], r.get("version")) for r in results] == [("applied", 1), ("applied", 1)],
           f"create: {results}")
    expect(set(listed()) == {first, second}, "both created instruments are listed")

    results = ops({"opId": f"{second}-2", "kind": "setDefault", "instrumentId": second})
    expect(results[0]["status"] == "applied" and results[0]["version"] == 2, f"setDefault: {results}")
    now = listed()
    expect(now[second]["method"]["isDefault"] and not now[first]["method"]["isDefault"], "the second is the default")

    results = ops({"opId": f"{first}-2", "kind": "upsert", "instrumentId": first, "baseVersion": 1,
                   "method": method(first, "3333", default=True)})
    expect(results[0]["status"] == "applied" and results[0]["version"] == 2, f"edit to default: {results}")
    now = listed()
    expect(now[first]["method"]["isDefault"] and now[first]["version"] == 2, "the edit moved the default")
    expect(now[first]["method"]["paymentInstrumentData"]["last4Digits"] == "3333", "the edit is stored")
    expect(not now[second]["method"]["isDefault"] and now[second]["version"] == 3,
           "the old default lost its flag at a new version")

    results = ops({"opId": f"{first}-3", "kind": "upsert", "instrumentId": first, "baseVersion": 1,
                   "method": method(first, "4444")})
    expect(results[0]["status"] == "conflict" and results[0]["reason"] == "version-mismatch"
           and results[0]["current"]["version"] == 2, f"stale upsert: {results}")
    results = ops(*create)
    expect([r["status"] for r in results] == ["applied", "applied"] and listed()[first]["version"] == 2,
           "a re-sent op gets its recorded result and changes nothing")

    results = ops({"opId": f"{second}-3", "kind": "delete", "instrumentId": second})
    expect(results[0]["status"] == "applied" and results[0]["version"] == 4, f"delete by op: {results}")
    answer = session.delete(f"{base}/instruments/{first}", timeout=30)
    expect(answer.status_code == 200 and answer.json()["change"]["deleted"], f"DELETE answered {answer.status_code}")
    expect(listed() == {}, "no deleted instrument is listed")
    answer = session.delete(f"{base}/instruments/{first}", timeout=30)
    expect(answer.status_code == 404, f"a second DELETE answered {answer.status_code}, not 404")
    results = ops({"opId": f"{first}-4", "kind": "setDefault", "instrumentId": first})
    expect(results[0]["status"] == "conflict" and results[0]["reason"] == "deleted", f"setDefault after delete: {results}")

    feed, cursor = {}, ""
    while True:
        answer = session.get(f"{base}/changes", params={"cursor": cursor, "limit": 100}, timeout=30)
        expect(answer.status_code == 200, f"changes answered {answer.status_code}")
        page = answer.json()
        feed.update({change["id"]: change for change in page["changes"]})
        cursor = page["cursor"]
        if not page["hasMore"]:
            break
    expect(feed.get(first, {}).get("deleted") and feed.get(second, {}).get("deleted"),
           "the change feed ends both instruments with a tombstone")
    print(f"scenario ({customer}): created 2, set a default, moved it by upsert, met a stale version and a "
          "replay, deleted one by op and one by DELETE: all checked through the GET endpoints")
    return 0


if __name__ == "__main__":
    command, arguments = sys.argv[1], sys.argv[2:]
    if command == "share":
        sys.exit(share(float(arguments[0]), arguments[1], arguments[2:]))
    if command == "scenario":
        sys.exit(scenario(*arguments))
    sys.exit(f"usage: {sys.argv[0]} share MIN DB NDJSON... | scenario URL CA KEY CUSTOMER")
