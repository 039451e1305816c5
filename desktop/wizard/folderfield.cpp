#include "folderfield.h"

#include "core/folderdrop.h"

#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QPushButton>
#include <QVBoxLayout>

namespace ddl::desktop {

FolderField::FolderField(const QString &dialogTitle, QWidget *parent)
    : QWidget(parent)
    , m_edit(new QLineEdit(this))
    , m_message(new QLabel(this))
    , m_title(dialogTitle)
{
    setAcceptDrops(true);
    m_edit->setAcceptDrops(false); // a drop on the line is the field's: checked, not typed
    m_browse = new QPushButton(this);
    retranslateUi();
    m_message->setObjectName(QStringLiteral("dropMessage"));
    m_message->setWordWrap(true);
    m_message->setForegroundRole(QPalette::PlaceholderText);
    m_message->hide();
    auto *row = new QHBoxLayout;
    row->addWidget(m_edit, 1);
    row->addWidget(m_browse);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(row);
    layout->addWidget(m_message);
    connect(m_edit, &QLineEdit::textChanged, this, &FolderField::pathChanged);
    connect(m_edit, &QLineEdit::textChanged, m_message, &QLabel::hide);
    connect(m_browse, &QPushButton::clicked, this, [this] {
        const QString folder = QFileDialog::getExistingDirectory(this, m_title, path());
        if (!folder.isEmpty())
            setPath(folder);
    });
}

void FolderField::retranslateUi()
{
    m_edit->setPlaceholderText(tr("Drop a folder here or browse"));
    m_browse->setText(tr("Browse…"));
}

void FolderField::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
}

QString FolderField::path() const
{
    return m_edit->text().trimmed();
}

void FolderField::setPath(const QString &path)
{
    m_edit->setText(path);
}

QString FolderField::dropMessage() const
{
    return m_message->isHidden() ? QString() : m_message->text();
}

// A drag that is not one folder is refused at once, and the field says why, so the person
// knows before letting go. What it carries is looked at (on disk) once, when it enters: the
// mouse moves that follow are answered from that.
void FolderField::dragEnterEvent(QDragEnterEvent *event)
{
    m_drag = FolderDrop::inspect(event->mimeData());
    m_message->setText(m_drag.problem);
    m_message->setVisible(!m_drag.isFolder());
    m_drag.answer(event);
}

void FolderField::dragMoveEvent(QDragMoveEvent *event)
{
    m_drag.answer(event);
}

void FolderField::dropEvent(QDropEvent *event)
{
    if (m_drag.answer(event))
        setPath(m_drag.folder);
    m_drag = {};
}

void FolderField::dragLeaveEvent(QDragLeaveEvent *event)
{
    QWidget::dragLeaveEvent(event);
    m_drag = {};
}

} // namespace ddl::desktop
