#include "pushimagedialog.h"

#include "api/imagepush.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

PushImageDialog::PushImageDialog(QWidget *parent)
    : QDialog(parent)
    , m_image(new QComboBox(this))
    , m_name(new QLineEdit(this))
    , m_problem(new QLabel(this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this))
{
    setWindowTitle(tr("Push an image"));
    m_image->setObjectName(u"localImage"_s);
    m_image->setEditable(true);
    m_image->setMinimumContentsLength(40);
    m_image->lineEdit()->setPlaceholderText(tr("reading podman's images…"));
    m_name->setObjectName(u"imageName"_s);
    m_problem->setObjectName(u"pushProblem"_s);
    m_problem->setWordWrap(true);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Push"));
    auto *form = new QFormLayout(this);
    form->addRow(tr("Local image:"), m_image);
    form->addRow(tr("Name on the server: ddl://"), m_name);
    form->addRow(m_problem);
    form->addRow(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_image, &QComboBox::currentTextChanged, this, [this](const QString &image) {
        if (!m_nameEdited)
            m_name->setText(ImagePush::defaultName(image.trimmed()));
        check();
    });
    connect(m_name, &QLineEdit::textEdited, this, [this] {
        m_nameEdited = true;
        check();
    });
    check();
    listLocalImages();
}

QString PushImageDialog::localImage() const
{
    return m_image->currentText().trimmed();
}

QString PushImageDialog::imageName() const
{
    return m_name->text().trimmed();
}

QStringList PushImageDialog::localImages() const
{
    QStringList images;
    for (int i = 0; i < m_image->count(); ++i)
        images << m_image->itemText(i);
    return images;
}

void PushImageDialog::listLocalImages()
{
    const Result<QString> podman = ImagePush::podman();
    if (!podman) {
        m_problem->setText(podman.error().message);
        return;
    }
    connect(&m_podman, &QProcess::finished, this, [this] {
        const QString typed = m_image->currentText();
        const QStringList images = ImagePush::localImageNames(m_podman.readAllStandardOutput());
        m_image->addItems(images);
        m_image->setEditText(typed.isEmpty() ? images.value(0) : typed);
        m_image->lineEdit()->setPlaceholderText(
            images.isEmpty() ? tr("podman lists no image; build one first") : QString());
        emit localImagesListed();
    });
    m_podman.start(*podman, {u"images"_s, u"--format"_s, u"json"_s});
    m_podman.closeWriteChannel();
}

// The server's rule for names (POST /v1/images); what is wrong is said before the push starts.
void PushImageDialog::check()
{
    static const QRegularExpression name(
        QRegularExpression::anchoredPattern(u"[A-Za-z0-9][A-Za-z0-9._-]{0,99}"_s));
    QString problem;
    if (localImage().isEmpty())
        problem = tr("Choose a local image or type its reference.");
    else if (Status checked = ImagePush::checkReference(localImage()); !checked)
        problem = checked.error().message;
    else if (!name.match(imageName()).hasMatch())
        problem = tr("The name may have letters, digits and . _ - (at most 100), starting with "
                     "a letter or digit.");
    m_problem->setText(problem);
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(problem.isEmpty());
}

} // namespace ddl::desktop
