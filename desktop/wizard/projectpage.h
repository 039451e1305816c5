#pragma once

#include <QWizardPage>

class QLabel;

namespace ddl::desktop {

class FolderField;

// Step 1: the project folder (a git repository; optional for an OpenPAI job of commands).
class ProjectPage : public QWizardPage
{
    Q_OBJECT
public:
    ProjectPage(bool needsRepository, QWidget *parent = nullptr);
    bool isComplete() const override;
    int nextId() const override;
    FolderField *folderField() const { return m_folder; }

protected:
    void changeEvent(QEvent *event) override;

private:
    void retranslateUi();

    FolderField *m_folder;
    QLabel *m_label;
    bool m_needsRepository;
};

} // namespace ddl::desktop
