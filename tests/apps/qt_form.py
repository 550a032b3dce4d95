"""A small Qt form for AT-SPI tests: line edit, check box, combo, button, label, password.

Run with the sandbox environment (QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1). Pressing
Apply copies the line edit's text into the label, so a press has an observable
effect; pressing Later opens a "Details" window 800 ms afterwards, with nothing
in between, as an application waiting on a timer or another process would.
"""

from __future__ import annotations

import sys

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)


def main() -> int:
    app = QApplication(sys.argv)
    form = QWidget()
    form.setWindowTitle("Qt Form")
    layout = QFormLayout(form)
    name = QLineEdit()
    name.setAccessibleName("Name")
    agree = QCheckBox("Agree")
    colour = QComboBox()
    colour.setAccessibleName("Colour")
    colour.addItems(["Red", "Green", "Blue"])
    secret = QLineEdit()
    secret.setAccessibleName("Password")
    secret.setEchoMode(QLineEdit.EchoMode.Password)
    echo = QLabel("nothing yet")
    apply = QPushButton("Apply")
    apply.clicked.connect(lambda: echo.setText(f"hello {name.text()}"))
    layout.addRow("Name", name)
    layout.addRow(agree)
    layout.addRow("Colour", colour)
    layout.addRow("Password", secret)
    details = QWidget()
    details.setWindowTitle("Details")
    QVBoxLayout(details).addWidget(QLabel("the details"))
    later = QPushButton("Later")
    later.clicked.connect(lambda: QTimer.singleShot(800, details.show))
    layout.addRow(apply)
    layout.addRow(later)
    layout.addRow(echo)
    form.resize(360, 240)
    form.show()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
