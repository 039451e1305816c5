#include "projectpage.h"

#include "wizard/folderfield.h"
#include "wizard/submitwizard.h"

#include <QEvent>
#include <QDir>
#include <QLabel>
#include <QVBoxLayout>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

ProjectPage::ProjectPage(bool needsRepository, QWidget *parent)
    : QWizardPage(parent)
    , m_folder(new FolderField(QString(), this))
    , m_label(new QLabel(this))
    , m_needsRepository(needsRepository)
{
    retranslateUi();
    m_folder->setObjectName(u"projectFolder"_s);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_label);
    layout->addWidget(m_folder);
    layout->addStretch();
    registerField(u"folder"_s, m_folder, "path", SIGNAL(pathChanged(QString)));
    connect(m_folder, &FolderField::pathChanged, this, &QWizardPage::completeChanged);
}

// The texts set once; the page retranslates itself, as the wizard may be mid-way (the main
// window rebuilds its own views instead).
void ProjectPage::retranslateUi()
{
    setTitle(tr("Project"));
    setSubTitle(m_needsRepository
                    ? tr("The git repository with your main.py. DDL sends the code of its last "
                         "commit.")
                    : tr("Optional: a git repository whose code the commands run in."));
    m_label->setText(tr("Project folder:"));
    m_folder->setDialogTitle(tr("Project folder"));
}

void ProjectPage::changeEvent(QEvent *event)
{
    QWizardPage::changeEvent(event);
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
}

bool ProjectPage::isComplete() const
{
    const QString path = m_folder->path();
    if (path.isEmpty())
        return !m_needsRepository;
    return QDir(path).exists();
}

int ProjectPage::nextId() const
{
    return m_folder->path().isEmpty() ? SubmitWizard::DatasetPage : SubmitWizard::GitPage;
}

} // namespace ddl::desktop
