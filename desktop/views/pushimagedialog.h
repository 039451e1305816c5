#pragma once

#include <QDialog>
#include <QProcess>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;

namespace ddl::desktop {

// Asks which local podman image to push and under which name: the images `podman images` lists
// fill the choice (read by a QProcess, never on the GUI thread's time), a reference may also be
// typed, and the name follows the image until the user changes it.
class PushImageDialog : public QDialog
{
    Q_OBJECT
public:
    explicit PushImageDialog(QWidget *parent = nullptr);
    QString localImage() const;
    QString imageName() const;
    // The local images once podman listed them (empty until then, or when it could not).
    QStringList localImages() const;

signals:
    void localImagesListed();

private:
    void listLocalImages();
    void check();

    QComboBox *m_image;
    QLineEdit *m_name;
    QLabel *m_problem;
    QDialogButtonBox *m_buttons;
    QProcess m_podman;
    bool m_nameEdited = false;
};

} // namespace ddl::desktop
