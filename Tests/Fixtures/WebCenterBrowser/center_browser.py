"""Drives the web notification center in headless Chromium (Debian's chromium and chromium-driver) with Selenium,
as a person would: WebCenterBrowserTests starts a center and runs this script against it.

    python center_browser.py LINK SCREENSHOT_FOLDER

Protocol with the test, one line each on standard output: `loaded` once the pages were checked and a live delivery
may come; `done` at the end (after a search, a snooze and a content extension's action). Any failed check raises, and the exit status is not 0.
"""

import os
import sys

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

link, shots = sys.argv[1], sys.argv[2]
base = link.split("?")[0]

options = Options()
options.binary_location = "/usr/bin/chromium"
for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1100,1250", "--force-color-profile=srgb", "--hide-scrollbars"]:
    options.add_argument(argument)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
wait = WebDriverWait(driver, 60)


def shot(name):
    driver.save_screenshot(os.path.join(shots, f"web-center-{name}.png"))


def present(css):
    return len(driver.find_elements(By.CSS_SELECTOR, css)) > 0


def settled(action):
    """Runs `action` again until no element it found went stale: a live update can swap in the part of the page that
    holds the element between finding and clicking it (seen under the whole suite on a loaded machine)."""
    def attempt(_):
        try:
            action()
            return True
        except StaleElementReferenceException:
            return False
    wait.until(attempt)


try:
    # Without the secret: 401, and nothing of the notifications.
    driver.get(base)
    assert "401" in driver.title, driver.title
    assert "Lunch" not in driver.page_source

    # The link: the secret goes into an HttpOnly cookie and leaves the address bar.
    driver.get(link)
    assert "token=" not in driver.current_url, driver.current_url
    cookie = driver.get_cookie("unotify-center")
    assert cookie and cookie["httpOnly"] and cookie.get("sameSite") == "Strict", cookie
    assert driver.execute_script("return document.cookie") == "", "the session cookie is visible to scripts"

    # Delivered: what the store holds, escaped.
    wait.until(lambda d: "Lunch at noon?" in d.page_source)
    assert driver.find_element(By.CSS_SELECTOR, 'article[data-id="n1"] .title').text == "Lunch at noon?"
    body = driver.find_element(By.CSS_SELECTOR, 'article[data-id="hostile"] .body').text
    assert body == "<script>alert('x')</script>", body
    assert driver.execute_script("return window.hacked === undefined")
    image = driver.find_element(By.CSS_SELECTOR, 'article[data-id="photo"] img.attachment')
    assert driver.execute_script("return arguments[0].naturalWidth", image) > 0, "the attachment image did not load"
    wait.until(lambda d: d.find_element(By.ID, "live").text == "live")
    # Every delivery is unread: the header counts them, as the daemon does.
    unread = len(driver.find_elements(By.CSS_SELECTOR, "article.notification.unread"))
    assert unread == 5, unread
    assert driver.find_element(By.ID, "unread-total").text == str(unread), driver.find_element(By.ID, "unread-total").text
    shot("delivered")

    driver.get(base + "scheduled")
    assert "every day at 09:30" in driver.page_source
    assert present("figure.timeline svg circle.fire")
    shot("scheduled")

    driver.get(base + "history")
    assert present("figure.histogram svg rect.bar")
    shot("history")

    driver.get(base + "apps")
    assert "com.example.chat" in driver.page_source
    shot("apps")

    # Remove a pending request.
    driver.get(base + "scheduled")
    settled(lambda: driver.find_element(By.CSS_SELECTOR, 'tr[data-id="standup"] button.remove').click())
    wait.until(lambda d: d.current_url.endswith("/scheduled") and not present('tr[data-id="standup"]'))

    # A delivery appears without a reload.
    driver.get(base)
    wait.until(lambda d: d.find_element(By.ID, "live").text == "live")
    driver.execute_script("document.body.dataset.marker = 'same page'")
    print("loaded", flush=True)
    wait.until(lambda d: present('article[data-id="live1"]'))
    assert driver.execute_script("return document.body.dataset.marker") == "same page", "the page was reloaded"
    # The unread count follows live too (the stream's `unread` event).
    wait.until(lambda d: d.find_element(By.ID, "unread-total").text == str(unread + 1))
    shot("live")

    # Mark read: the dot goes and the count drops.
    settled(lambda: driver.find_element(By.CSS_SELECTOR, 'article[data-id="hostile"] button.mark-read').click())
    wait.until(lambda d: not present('article.unread[data-id="hostile"]')
               and d.find_element(By.ID, "unread-total").text == str(unread))

    # An action button, then a text-input action with a reply.
    settled(lambda: driver.find_element(By.CSS_SELECTOR, 'article[data-id="n1"] button.action').click())
    wait.until(lambda d: not present('article[data-id="n1"]'))

    def reply():
        field = driver.find_element(By.CSS_SELECTOR, 'article[data-id="n2"] input[name="text"]')
        field.send_keys("On my way")
        field.find_element(By.XPATH, "./ancestor::form//button").click()
    settled(reply)
    wait.until(lambda d: not present('article[data-id="n2"]'))

    # Search from the box at the top: the answered notification is in the history, the word marked.
    box = driver.find_element(By.CSS_SELECTOR, 'form.search input[name="q"]')
    box.send_keys("LUNCH", Keys.ENTER)
    wait.until(lambda d: "/search?q=LUNCH" in d.current_url)
    marks = [mark.text for mark in driver.find_elements(By.CSS_SELECTOR, "tr.result mark")]
    assert "Lunch" in marks, marks
    shot("search")

    # Snooze for 10 minutes: the notification leaves the list and waits on the Scheduled page.
    driver.get(base)
    settled(lambda: driver.find_element(By.CSS_SELECTOR, 'article[data-id="photo"] button.snooze[value="10min"]').click())
    wait.until(lambda d: d.current_url == base and not present('article[data-id="photo"]'))
    driver.get(base + "scheduled")
    assert present('tr[data-id="photo.snoozed"]'), driver.page_source

    # A content extension's view: a sandboxed frame in an opaque origin whose script runs but cannot reach the
    # center; the Accept button below it goes to the extension, which forwards it to the app.
    driver.get(base)
    frame = driver.find_element(By.CSS_SELECTOR, 'article[data-id="invite1"] iframe.extension-view')
    assert frame.get_attribute("sandbox") == "allow-scripts", frame.get_attribute("sandbox")
    driver.switch_to.frame(frame)
    wait.until(lambda d: "Drawn by the app's content extension" in d.find_element(By.TAG_NAME, "body").text)
    assert driver.execute_script("return document.body.dataset.ran") == "yes", "the view's script did not run"
    assert driver.execute_script("return window.origin") == "null", "the view is not in an opaque origin"
    assert driver.execute_script(
        "try { return parent.document.title === undefined; } catch (e) { return true; }"), "the view reached the page"
    driver.switch_to.default_content()
    shot("extension")
    settled(lambda: driver.find_element(By.CSS_SELECTOR, 'article[data-id="invite1"] button.action').click())
    wait.until(lambda d: d.current_url == base and not present('article[data-id="invite1"]'))
    print("done", flush=True)
except Exception:
    # What the browser showed when a check failed: for the test's failure message.
    shot("failure")
    print(f"failed at {driver.current_url}: {driver.title}\n{driver.find_element(By.TAG_NAME, 'body').text}",
          file=sys.stderr)
    raise
finally:
    driver.quit()
