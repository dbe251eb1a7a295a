"""The operator console (/console) in headless Chromium against a running `tessera serve` with a
token: the task list with live thumbnails, a region dragged on the task page moving in the stream
nginx-rtmp serves, an invalid edit showing the API's field path, a stale sequence offered a
reload, a task designed in the designer starting, and HTML in a document shown as text. A
screenshot of each page is kept (see browsertools.ARTIFACTS)."""
from __future__ import annotations

import json
import time

import pytest

from browsertools import screenshot, start_chromium
from helpers import RED
from livetools import StreamReader, wait_until

TOKEN = "console-test-token"
# serial: a headless Chromium, the encoder and its own CPU hog already share the two cores.
pytestmark = [pytest.mark.live, pytest.mark.serial, pytest.mark.serve_args("--api-token", TOKEN)]
AUTH = {"Authorization": f"Bearer {TOKEN}"}
# Small and slow: the browser, the encoder and a CPU hog share two cores.
W, H, FPS = 320, 240, 15
HOSTILE = '<img src=x onerror="window.pwned=1">'


@pytest.fixture
def server(tessera_server):
    return tessera_server


@pytest.fixture
def browser():
    driver = start_chromium()
    try:
        yield driver
    finally:
        driver.quit()


def create(srv, doc):
    r = srv.client.post("/v1/tasks", doc, headers=AUTH)
    assert r.status == 201, f"POST /v1/tasks: {r.status} {r.body[:1000]!r}"
    return r.json


def wait_running(srv, task_id, timeout=30):
    def running():
        r = srv.client.get(f"/v1/tasks/{task_id}", headers=AUTH)
        return r.status == 200 and r.json["state"] == "running" and r.json["frames"] > 0
    assert wait_until(running, timeout, 0.2), f"{task_id} not running: {srv.client.get(f'/v1/tasks/{task_id}', headers=AUTH).body!r}"


def task_doc(task_id, clip, url, input_id="cam", region=(0, 0, 160, 120)):
    x, y, w, h = region
    return {"taskId": task_id, "inputs": [{"id": input_id, "url": clip, "loop": True}],
            "encoder": {"video": {"width": W, "height": H, "fps": FPS, "bitrateKbps": 400, "preset": "ultrafast"}},
            "layout": {"backgroundColor": "#000000",
                       "regions": [{"input": input_id, "x": x, "y": y, "width": w, "height": h}]},
            "outputs": [{"url": url}]}


def sign_in(driver, srv):
    from selenium.webdriver.common.by import By
    driver.get(f"http://127.0.0.1:{srv.port}/console")
    field = wait_for(driver, "#token-input")
    field.send_keys(TOKEN)
    driver.find_element(By.CSS_SELECTOR, "#token-form button[type=submit]").click()
    wait_for(driver, "#task-list")
    # Kept for the tab only, never in the URL.
    assert driver.execute_script("return sessionStorage.getItem('tessera.token')") == TOKEN
    assert TOKEN not in driver.current_url


def wait_for(driver, css, timeout=20, check=lambda e: True):
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    found = []

    def present():
        # A page that refreshes (the cluster table, the task list) replaces elements between
        # finding and checking them: that is "not yet", not a failure.
        try:
            found[:] = [e for e in driver.find_elements(By.CSS_SELECTOR, css) if check(e)]
        except StaleElementReferenceException:
            found.clear()
        return bool(found)
    assert wait_until(present, timeout, 0.1), f"no {css} within {timeout} s; page:\n{driver.find_element(By.TAG_NAME, 'body').text[:2000]}"
    return found[0]


def csp_violations(driver):
    return [m["message"] for m in driver.get_log("browser") if "Content Security Policy" in m["message"]]


def test_task_list_shows_live_thumbnails_and_hostile_text_as_text(server, browser, rtmp_server, clips):
    create(server, task_doc("alpha", clips.red, rtmp_server.url("alpha"), input_id=HOSTILE))
    create(server, task_doc("beta", clips.blue, rtmp_server.url("beta")))
    wait_running(server, "alpha")
    wait_running(server, "beta")
    sign_in(browser, server)
    for task_id in ("alpha", "beta"):
        card = wait_for(browser, f'.task-card[data-task-id="{task_id}"]')
        thumb = card.find_element("css selector", "img.thumb")
        assert wait_until(lambda: int(thumb.get_attribute("data-frames") or 0) >= 1, 20, 0.2), f"{task_id}: no thumbnail"
        first = thumb.get_attribute("src")
        assert first.startswith("blob:"), first
        assert wait_until(lambda: thumb.get_attribute("src") != first, 20, 0.2), f"{task_id}: thumbnail never refreshed"
        # A new blob: URL decodes a moment after it is set.
        assert wait_until(lambda: browser.execute_script("return arguments[0].naturalWidth", thumb) == W, 10, 0.1)
    alpha = browser.find_element("css selector", '.task-card[data-task-id="alpha"]')
    assert HOSTILE in alpha.text, alpha.text
    assert not alpha.find_elements("css selector", "ul.inputs img"), "an input id became an element"
    assert browser.execute_script("return window.pwned") is None
    screenshot(browser, "tasks")
    assert not csp_violations(browser)


def test_dragging_a_region_moves_it_in_the_published_stream(server, browser, rtmp_server, clips, tmp_path):
    from selenium.webdriver import ActionChains
    url = rtmp_server.url("drag")
    create(server, task_doc("drag", clips.red, url))
    wait_running(server, "drag")
    sign_in(browser, server)
    browser.get(f"http://127.0.0.1:{server.port}/console#/task/drag")
    box = wait_for(browser, ".region")
    wait_for(browser, "#picture", check=lambda e: int(e.get_attribute("data-frames") or 0) >= 1)
    overlay = browser.find_element("css selector", "#overlay")
    scale = overlay.size["width"] / W
    # Grab the box off its centre label, move it 160 canvas pixels right and 120 down.
    ActionChains(browser).move_to_element_with_offset(box, 0, 10).click_and_hold() \
        .move_by_offset(40 * scale, 30 * scale).move_by_offset(120 * scale, 90 * scale).release().perform()
    wait_for(browser, "#saved")
    screenshot(browser, "task")
    doc = server.client.get("/v1/tasks/drag/document", headers=AUTH).json
    region = doc["document"]["layout"]["regions"][0]
    assert abs(region["x"] - 160) <= 4 and abs(region["y"] - 120) <= 4, region
    assert doc["sequence"] == 1, doc

    reader = StreamReader(url, tmp_path / "drag.flv", W, H)
    try:
        def moved():
            latest = reader.latest()
            if not latest:
                return False
            frame = latest[1]
            red_at = lambda x, y: frame.rgb_at(x, y)[0] > 180 and frame.rgb_at(x, y)[1] < 80
            return red_at(240, 180) and not red_at(80, 60)
        assert wait_until(moved, 30, 0.2), f"the region never moved in the stream: {reader.stderr()}"
    finally:
        reader.stop()

    # An invalid value: the API's field path shows next to the control.
    wait_for(browser, ".region").click()
    alpha = wait_for(browser, '#region-form input[name="alpha"]')
    alpha.clear()
    alpha.send_keys("5")
    browser.find_element("css selector", "#apply-region").click()
    error = wait_for(browser, ".field-error")
    assert "layout.regions[0].alpha" in error.text, error.text
    assert error.find_element("xpath", "preceding-sibling::*[1]").get_attribute("name") == "alpha"
    screenshot(browser, "task-invalid-edit")

    # Someone else updates the task: the next edit is refused as stale and offers a reload.
    r = server.client.patch("/v1/tasks/drag", {"sequence": 50, "layout": doc["document"]["layout"]}, headers=AUTH)
    assert r.status == 200, r.body
    alpha = wait_for(browser, '#region-form input[name="alpha"]')
    alpha.clear()
    alpha.send_keys("0.5")
    browser.find_element("css selector", "#apply-region").click()
    wait_for(browser, "#stale", check=lambda e: e.is_displayed())
    browser.find_element("css selector", "#reload").click()
    wait_for(browser, "#stale", check=lambda e: not e.is_displayed())

    # Its corner resizes it: 40 canvas pixels narrower, 20 lower.
    handle = wait_for(browser, ".region .handle")
    ActionChains(browser).click_and_hold(handle).move_by_offset(-20 * scale, -10 * scale) \
        .move_by_offset(-20 * scale, -10 * scale).release().perform()
    assert wait_until(lambda: server.client.get("/v1/tasks/drag/document", headers=AUTH).json["sequence"] == 51, 10, 0.1)
    region = server.client.get("/v1/tasks/drag/document", headers=AUTH).json["document"]["layout"]["regions"][0]
    assert abs(region["width"] - 120) <= 4 and abs(region["height"] - 100) <= 4 and abs(region["x"] - 160) <= 4, region
    assert not csp_violations(browser)


def test_a_task_designed_in_the_designer_starts(server, browser, rtmp_server, clips):
    sign_in(browser, server)
    browser.get(f"http://127.0.0.1:{server.port}/console#/designer")
    wait_for(browser, "#designer-form")

    def set_field(path, value):
        field = wait_for(browser, f'#designer-form [data-path="{path}"]')
        field.clear()
        field.send_keys(str(value))

    # HTML in the id: the server refuses it, and the refusal shows as text.
    set_field("taskId", HOSTILE)
    wait_for(browser, ".field-error", check=lambda e: "taskId" in e.text)
    assert browser.execute_script("return window.pwned") is None
    assert not browser.find_elements("css selector", "#designer-errors img, .field-error img")

    set_field("taskId", "designed")
    set_field("inputs[0].url", clips.red)
    set_field("encoder.video.width", W)
    set_field("encoder.video.height", H)
    set_field("encoder.video.fps", FPS)
    set_field("outputs[0].url", rtmp_server.url("designed"))
    browser.find_element("css selector", 'button[data-template="pk"]').click()
    wait_for(browser, "#valid", timeout=20)
    wait_for(browser, "#designer-preview",
             check=lambda e: browser.execute_script("return arguments[0].naturalWidth", e) == W)
    document = json.loads(browser.find_element("css selector", "#designer-json").get_attribute("value"))
    assert document["layout"]["template"] == "pk" and document["inputs"][0]["url"] == clips.red
    screenshot(browser, "designer")
    browser.find_element("css selector", "#start-task").click()
    assert wait_until(lambda: browser.current_url.endswith("#/task/designed"), 20, 0.1), browser.current_url
    wait_running(server, "designed")
    wait_for(browser, "#task-title", check=lambda e: e.text == "designed")

    browser.get(f"http://127.0.0.1:{server.port}/console#/cluster")
    # The node's load comes from its heartbeat: it shows the new task within a few seconds.
    row = wait_for(browser, "#cluster tr[data-node]", check=lambda e: "designed" in e.text and "1 /" in e.text)
    assert "ready" in row.text, row.text
    screenshot(browser, "cluster")
    assert not csp_violations(browser)


def test_the_console_asks_the_token_and_refuses_a_wrong_one(server, browser):
    browser.get(f"http://127.0.0.1:{server.port}/console")
    field = wait_for(browser, "#token-input")
    field.send_keys("wrong")
    browser.find_element("css selector", "#token-form button[type=submit]").click()
    wait_for(browser, "#token-error", check=lambda e: "not accepted" in e.text)
    assert browser.execute_script("return sessionStorage.getItem('tessera.token')") is None
    headers = server.client.get("/console").headers
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert headers["x-content-type-options"] == "nosniff"
    screenshot(browser, "sign-in")
