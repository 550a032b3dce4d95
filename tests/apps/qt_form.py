"""A small Qt form for AT-SPI tests: line edit, check box, combo, button, label, password.

Run with the sandbox environment (QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1). Pressing
the button copies the line edit's text into the label, so a press has an
observable effect.
"""

from __future__ import annotations

import sys

from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPushButton,
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
    layout.addRow(apply)
    layout.addRow(echo)
    form.resize(360, 240)
    form.show()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
