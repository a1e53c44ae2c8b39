"""Drives server mode's push statistics pages (a worker's /center) in headless Chromium (Debian's chromium and
chromium-driver) with Selenium: PushCenterBrowserTests starts a worker's API and runs this script against it.

    python push_center_browser.py LINK SCREENSHOT MESSAGE_ID DEVICE DEVICE_TOKEN HOURS

LINK is what `unotify server center` printed; SCREENSHOT the PNG file to write of the push's page; MESSAGE_ID the push
whose page is checked; DEVICE and DEVICE_TOKEN a device that reports "opened" over the API's receipts route while the
page is open (the page must show it without a reload); HOURS the number of bar groups the chart must have. Prints
`done` at the end; any failed check raises, and the exit status is not 0.
"""

import json
import sys
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

link, screenshot, message_id, device, device_token, hours = sys.argv[1:7]
base = link.split("center?")[0]

options = Options()
options.binary_location = "/usr/bin/chromium"
for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1100,1300", "--force-color-profile=srgb", "--hide-scrollbars"]:
    options.add_argument(argument)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
# A refresh swaps the figures in between finding an element and reading it: try again.
wait = WebDriverWait(driver, 60, ignored_exceptions=[StaleElementReferenceException])


def figure(name):
    return driver.find_element(By.CSS_SELECTOR, f'#figures dd[data-figure="{name}"]').text


try:
    # Without the token: 401, and nothing of the pushes.
    driver.get(base + "center")
    assert "401" in driver.title, driver.title
    assert message_id not in driver.page_source

    # The link: the token goes into an HttpOnly cookie for /center and leaves the address bar.
    driver.get(link)
    assert "token=" not in driver.current_url, driver.current_url
    cookie = driver.get_cookie("unotify-push-center")
    assert cookie and cookie["httpOnly"] and cookie.get("sameSite") == "Strict", cookie
    assert cookie["path"] == "/center", cookie
    assert driver.execute_script("return document.cookie") == "", "the session cookie is visible to scripts"

    # The list: the push's row, its title as text (escaped by the server, shown as written).
    row_selector = f'tr[data-message-id="{message_id}"]'
    title = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, f"{row_selector} .push-title").text)
    assert title == "<b>Match</b> tonight", title
    assert driver.execute_script("return document.querySelectorAll('b').length") == 0

    # The list refreshes itself too: a row found before a refresh is stale by the click, so find it again then.
    def open_push(d):
        d.find_element(By.CSS_SELECTOR, f"{row_selector} a").click()
        return True
    wait.until(open_push)

    # The push's page: figures, the chart (one group per hour), the live mark once a refresh worked.
    wait.until(lambda d: message_id in d.current_url)
    groups = driver.find_elements(By.CSS_SELECTOR, "svg.chart g.hour")
    assert len(groups) == int(hours), len(groups)
    wait.until(lambda d: d.find_element(By.ID, "live").text == "live")
    driver.execute_script("window.notReloaded = true")
    opened = int(wait.until(lambda d: figure("opened")))
    driver.save_screenshot(screenshot)

    # A receipt from the device, over the API, while the page is open: the page shows it within seconds.
    request = urllib.request.Request(
        f"{base}v1/devices/{device}/receipts", method="POST",
        data=json.dumps({"receipts": [{"messageId": message_id, "kind": "opened"}]}).encode(),
        headers={"Authorization": f"Bearer {device_token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request) as answer:
        assert json.load(answer)["recorded"] >= 1
    wait.until(lambda d: figure("opened") == str(opened + 1))
    assert driver.execute_script("return window.notReloaded === true"), "the page was reloaded"
    print("done", flush=True)
finally:
    driver.quit()
