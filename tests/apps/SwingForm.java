/*
 * A Swing form read through Java's ATK wrapper: a name field, a Register button and a
 * status label that says who registered.
 *
 * Run with Debian's OpenJDK (source-file mode): java tests/apps/SwingForm.java
 * Prints "registered=<name>" on stdout when Register is pressed.
 */
import java.awt.GridLayout;
import javax.swing.JButton;
import javax.swing.JFrame;
import javax.swing.JLabel;
import javax.swing.JPanel;
import javax.swing.JTextField;
import javax.swing.SwingUtilities;

public class SwingForm {
    public static void main(String[] args) {
        SwingUtilities.invokeLater(() -> {
            JFrame frame = new JFrame("Swing form");
            JPanel panel = new JPanel(new GridLayout(0, 2, 6, 6));
            JLabel nameLabel = new JLabel("Name:");
            JTextField name = new JTextField(16);
            nameLabel.setLabelFor(name);
            JLabel status = new JLabel("Not registered");
            JButton register = new JButton("Register");
            register.addActionListener(e -> {
                status.setText("Registered " + name.getText());
                System.out.println("registered=" + name.getText());
                System.out.flush();
            });
            panel.add(nameLabel);
            panel.add(name);
            panel.add(register);
            panel.add(status);
            frame.getContentPane().add(panel);
            frame.setDefaultCloseOperation(JFrame.EXIT_ON_CLOSE);
            frame.pack();
            frame.setVisible(true);
        });
    }
}
